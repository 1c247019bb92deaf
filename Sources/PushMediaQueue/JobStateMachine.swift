import Foundation

/// The pure, I/O-free rules of a job's life cycle. Every state change of both queue backends,
/// claims included, locks the jobs it selects, applies one transition here to each of them and
/// writes the results back, inside one transaction.
public struct JobStateMachine: Sendable {
    /// States a claim may take a job from (retrying only once its run-at is due).
    public static let claimableStates: [JobState] = [.queued, .retrying]

    /// Creates the state machine.
    public init() {}

    /// Applies `transition` to `job` at time `now` and returns the new job.
    /// - Throws: ``JobStateMachineError`` when the transition is illegal or the lease is not held.
    public func apply(_ transition: JobTransition, to job: Job, at now: Date) throws(JobStateMachineError) -> Job {
        var next = job
        next.updatedAt = now
        switch transition {
        case .claim(let owner, let leaseExpiresAt):
            let write = claimWrite(owner: owner, leaseExpiresAt: leaseExpiresAt, at: now)
            guard write.accepts(job) else { throw illegal(job, transition) }
            next = write.applied(to: job)

        case .heartbeat(let owner, let leaseExpiresAt):
            try requireLease(job, owner, transition)
            next = heartbeatWrite(owner: owner, leaseExpiresAt: leaseExpiresAt, at: now).applied(to: job)

        case .succeed(let owner, let result):
            try requireLease(job, owner, transition)
            next = succeedWrite(owner: owner, result: result, at: now).applied(to: job)

        case .failPermanently(let owner, let error, let result):
            try requireLease(job, owner, transition)
            next.state = .failed
            next.result = result
            next.lastError = error
            next.finishedAt = now
            next.errorHistory.append(
                JobNote(
                    at: now, kind: .permanentError, attempt: job.attempts, code: error.code, message: error.message))
            clearLease(&next)

        case .failTransiently(let owner, let error, let retryAt):
            try requireLease(job, owner, transition)
            next.lastError = error
            next.errorHistory.append(
                JobNote(
                    at: now, kind: .transientError, attempt: job.attempts, code: error.code, message: error.message))
            clearLease(&next)
            if job.attempts >= job.maxAttempts {
                next.state = .dead
                next.finishedAt = now
            } else {
                next.state = .retrying
                next.runAt = max(retryAt, now)
            }

        case .rescue:
            guard job.state == .running else { throw illegal(job, transition) }
            guard let expiry = job.leaseExpiresAt, expiry <= now else {
                throw .leaseNotExpired(jobID: job.id)
            }
            requeueFromLostOwner(&next, job, at: now, code: Self.leaseExpiredCode, how: "lease of \(job.leaseOwner ?? "unknown") expired")

        case .abandon(let owner):
            try requireLease(job, owner, transition)
            requeueFromLostOwner(&next, job, at: now, code: Self.ownerGoneCode, how: "\(owner) ended without finishing it")

        case .release(let owner):
            try requireLease(job, owner, transition)
            next.state = .queued
            next.attempts = max(0, job.attempts - 1)
            next.runAt = now
            clearLease(&next)

        case .retryDead:
            guard job.state == .dead else { throw illegal(job, transition) }
            next.state = .queued
            next.attempts = 0
            next.runAt = now
            next.finishedAt = nil
            next.errorHistory.append(
                JobNote(
                    at: now, kind: .requeue, attempt: 0, code: job.lastError?.code,
                    message: "dead job re-queued by hand; attempts reset"))

        case .reprocess(let reason):
            guard job.state.isTerminal else { throw illegal(job, transition) }
            next.state = .queued
            next.attempts = 0
            next.runAt = now
            next.finishedAt = nil
            next.result = nil
            next.lastError = nil
            next.errorHistory.append(JobNote(at: now, kind: .requeue, attempt: 0, code: nil, message: reason))
        }
        return next
    }

    /// Whether a claim may take `job` at `now`: it is in one of ``claimableStates`` and its run-at is due.
    func isClaimable(_ job: Job, at now: Date) -> Bool {
        Self.claimableStates.contains(job.state) && job.runAt <= now
    }

    /// The write of `transition` at `now` when it is the same for every job it is legal for, so a
    /// backend can lock and write in one statement; nil when the write depends on the job.
    /// ``apply(_:to:at:)`` applies a claim, a heartbeat and a success through this very value.
    func uniformWrite(_ transition: JobTransition, at now: Date) -> UniformJobWrite? {
        switch transition {
        case .claim(let owner, let leaseExpiresAt):
            claimWrite(owner: owner, leaseExpiresAt: leaseExpiresAt, at: now)
        case .heartbeat(let owner, let leaseExpiresAt):
            heartbeatWrite(owner: owner, leaseExpiresAt: leaseExpiresAt, at: now)
        case .succeed(let owner, let result):
            succeedWrite(owner: owner, result: result, at: now)
        case .failPermanently, .failTransiently, .rescue, .abandon, .release, .retryDead, .reprocess:
            nil
        }
    }

    private func heartbeatWrite(owner: String, leaseExpiresAt: Date, at now: Date) -> UniformJobWrite {
        UniformJobWrite(
            fromStates: [.running], runAtDueBy: nil, leaseHeldBy: owner, state: .running, attemptsDelta: 0,
            leaseOwner: owner, leaseExpiresAt: leaseExpiresAt, updatedAt: now, finish: nil)
    }

    private func succeedWrite(owner: String, result: Data, at now: Date) -> UniformJobWrite {
        UniformJobWrite(
            fromStates: [.running], runAtDueBy: nil, leaseHeldBy: owner, state: .succeeded, attemptsDelta: 0,
            leaseOwner: nil, leaseExpiresAt: nil, updatedAt: now, finish: .init(result: result, lastError: nil, finishedAt: now))
    }

    private func claimWrite(owner: String, leaseExpiresAt: Date, at now: Date) -> UniformJobWrite {
        UniformJobWrite(
            fromStates: Self.claimableStates, runAtDueBy: now, leaseHeldBy: nil, state: .running, attemptsDelta: 1,
            leaseOwner: owner, leaseExpiresAt: leaseExpiresAt, updatedAt: now, finish: nil)
    }

    /// Applies `transition` to each of `jobs` at `now` (all or none: the first refusal throws).
    /// Idle workers are to be woken when any job comes out claimable at once.
    func apply(_ transition: JobTransition, toEach jobs: [Job], at now: Date) throws(JobStateMachineError) -> AppliedTransition {
        var changed: [Job] = []
        changed.reserveCapacity(jobs.count)
        for job in jobs {
            changed.append(try apply(transition, to: job, at: now))
        }
        return AppliedTransition(jobs: changed, wakesWorkers: changed.contains { isClaimable($0, at: now) })
    }

    private func illegal(_ job: Job, _ transition: JobTransition) -> JobStateMachineError {
        .illegalTransition(jobID: job.id, from: job.state, transition: transition.name)
    }

    /// Lease-holder transitions need a running job leased by `owner`; anything else means the
    /// caller lost its lease (rescued, released, finished or claimed by another worker).
    private func requireLease(_ job: Job, _ owner: String, _ transition: JobTransition) throws(JobStateMachineError) {
        guard job.state == .running, job.leaseOwner == owner else {
            throw .leaseNotHeld(jobID: job.id, owner: owner, actualOwner: job.state == .running ? job.leaseOwner : nil)
        }
    }

    /// The code of a rescue's note and, out of attempts, of the dead job's error.
    public static let leaseExpiredCode = "lease_expired"
    /// The code of an abandoned job's note and, out of attempts, of the dead job's error.
    public static let ownerGoneCode = "owner_gone"

    /// A running job whose lease holder is gone (``JobTransition/rescue``,
    /// ``JobTransition/abandon(owner:)``): the attempt counts; queued again, or dead when none is left.
    private func requeueFromLostOwner(_ next: inout Job, _ job: Job, at now: Date, code: String, how: String) {
        clearLease(&next)
        if job.attempts >= job.maxAttempts {
            let error = JobError(code: code, message: "\(how) on attempt \(job.attempts) of \(job.maxAttempts); no attempts left")
            next.state = .dead
            next.lastError = error
            next.finishedAt = now
            next.errorHistory.append(JobNote(at: now, kind: .rescue, attempt: job.attempts, code: error.code, message: error.message))
        } else {
            next.state = .queued
            next.runAt = now
            next.errorHistory.append(
                JobNote(
                    at: now, kind: .rescue, attempt: job.attempts, code: code,
                    message: "\(how) on attempt \(job.attempts) of \(job.maxAttempts); re-queued"))
        }
    }

    private func clearLease(_ job: inout Job) {
        job.leaseOwner = nil
        job.leaseExpiresAt = nil
    }
}
