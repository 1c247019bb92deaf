import Foundation

/// A backend that applies one ``JobTransition`` to one stored job atomically. The lease-holder
/// half of ``JobQueue`` is the same on every backend once that exists, so it is written once here.
protocol TransitioningJobQueue: JobQueue {
    var options: JobQueueOptions { get }
    var machine: JobStateMachine { get }

    /// Reads the job, applies `transition` and writes it back in one transaction; with
    /// `wakingWorkers`, idle workers are told there may be work.
    func transition(_ id: JobID, _ transition: JobTransition, wakingWorkers: Bool) async throws -> Job
}

extension TransitioningJobQueue {
    public func heartbeat(jobID: JobID, owner: String, leaseDuration: Duration) async throws -> Bool {
        let expiry = options.clock.now().adding(leaseDuration)
        do {
            _ = try await transition(jobID, .heartbeat(owner: owner, leaseExpiresAt: expiry), wakingWorkers: false)
            return true
        } catch JobQueueError.leaseLost, JobQueueError.jobNotFound {
            return false
        }
    }

    public func complete(jobID: JobID, owner: String, result: Data) async throws -> Job {
        try await transition(jobID, .succeed(owner: owner, result: result), wakingWorkers: false)
    }

    public func fail(jobID: JobID, owner: String, error: JobError, result: Data?) async throws -> Job {
        try await transition(jobID, .failPermanently(owner: owner, error: error, result: result), wakingWorkers: false)
    }

    public func failTransiently(jobID: JobID, owner: String, error: JobError, retryDelay: Duration) async throws -> Job {
        let retryAt = options.clock.now().adding(retryDelay)
        return try await transition(jobID, .failTransiently(owner: owner, error: error, retryAt: retryAt), wakingWorkers: false)
    }

    /// Gives a running job back (queued, attempt not counted) and wakes idle workers.
    public func release(jobID: JobID, owner: String) async throws -> Job {
        try await transition(jobID, .release(owner: owner), wakingWorkers: true)
    }

    /// Applies a transition with the state machine, its errors as ``JobQueueError``.
    static func apply(_ machine: JobStateMachine, _ transition: JobTransition, to job: Job, at now: Date) throws -> Job {
        do {
            return try machine.apply(transition, to: job, at: now)
        } catch {
            throw JobQueueError(error)
        }
    }
}
