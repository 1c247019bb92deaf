import Foundation

/// A backend whose every state change is one operation: lock the jobs a ``JobSelection`` picks,
/// apply one ``JobTransition`` to each with ``JobStateMachine``, write them back and, when any came
/// out claimable, wake idle workers, all in one transaction. Claims, the lease-holder operations
/// and the maintenance operations are the same on every backend once that exists, so they are
/// written once here; a backend adds only its SQL.
protocol TransitioningJobQueue: JobQueue {
    var options: JobQueueOptions { get }
    var machine: JobStateMachine { get }

    /// Locks the jobs `selection` picks, applies `transition` to each at `now`, writes them back and
    /// wakes idle workers when the state machine says so, in one transaction. Returns the changed
    /// jobs in the selection's order.
    /// - Throws: ``JobQueueError`` (a refused transition as ``JobQueueError/leaseLost(jobID:owner:)``
    ///   and the like); nothing is written then.
    func transition(_ selection: JobSelection, _ transition: JobTransition, at now: Date) async throws -> [Job]
}

extension TransitioningJobQueue {
    // MARK: Claim

    public func claim(owner: String, leaseDuration: Duration, limit: Int, campaign: String?) async throws -> [Job] {
        guard limit > 0 else { return [] }
        let now = options.clock.now()
        return try await transition(
            .claimable(campaign: campaign, limit: limit, at: now),
            .claim(owner: owner, leaseExpiresAt: now.adding(leaseDuration)), at: now)
    }

    // MARK: Lease holder

    public func heartbeat(jobID: JobID, owner: String, leaseDuration: Duration) async throws -> Bool {
        let expiry = options.clock.now().adding(leaseDuration)
        do {
            _ = try await transition(jobID, .heartbeat(owner: owner, leaseExpiresAt: expiry))
            return true
        } catch JobQueueError.leaseLost, JobQueueError.jobNotFound {
            return false
        }
    }

    public func complete(jobID: JobID, owner: String, result: Data) async throws -> Job {
        try await transition(jobID, .succeed(owner: owner, result: result))
    }

    public func fail(jobID: JobID, owner: String, error: JobError, result: Data?) async throws -> Job {
        try await transition(jobID, .failPermanently(owner: owner, error: error, result: result))
    }

    public func failTransiently(jobID: JobID, owner: String, error: JobError, retryDelay: Duration) async throws -> Job {
        let retryAt = options.clock.now().adding(retryDelay)
        return try await transition(jobID, .failTransiently(owner: owner, error: error, retryAt: retryAt))
    }

    /// Gives a running job back (queued, attempt not counted) and wakes idle workers.
    public func release(jobID: JobID, owner: String) async throws -> Job {
        try await transition(jobID, .release(owner: owner))
    }

    public func abandon(jobID: JobID, owner: String) async throws -> Job {
        try await transition(jobID, .abandon(owner: owner))
    }

    // MARK: Maintenance

    public func rescueExpiredLeases() async throws -> [Job] {
        let now = options.clock.now()
        return try await transition(.expiredLeases(at: now), .rescue, at: now)
    }

    public func retryDead(campaign: String?) async throws -> Int {
        try await transition(.dead(campaign: campaign), .retryDead, at: options.clock.now()).count
    }

    public func requeue(jobIDs: [JobID], reason: String) async throws -> Int {
        guard !jobIDs.isEmpty else { return 0 }
        return try await transition(.finished(jobIDs), .reprocess(reason: reason), at: options.clock.now()).count
    }

    // MARK: Helpers for the backends

    /// Applies `transition` to one job by id.
    /// - Throws: ``JobQueueError/jobNotFound(_:)`` when there is no such job.
    func transition(_ id: JobID, _ transition: JobTransition) async throws -> Job {
        guard let job = try await self.transition(.job(id), transition, at: options.clock.now()).first else {
            throw JobQueueError.jobNotFound(id)
        }
        return job
    }

    /// Applies a transition to the selected jobs with the state machine, its errors as ``JobQueueError``.
    static func apply(
        _ machine: JobStateMachine, _ transition: JobTransition, toEach jobs: [Job], at now: Date
    ) throws -> AppliedTransition {
        do {
            return try machine.apply(transition, toEach: jobs, at: now)
        } catch {
            throw JobQueueError(error)
        }
    }
}
