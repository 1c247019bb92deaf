import Foundation
import Testing

@testable import PushMediaQueue

@Suite("JobStateMachine")
struct JobStateMachineTests {
    let machine = JobStateMachine()
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    func job(_ state: JobState = .queued, attempts: Int = 0, maxAttempts: Int = 3, owner: String? = nil, expiry: Date? = nil) -> Job {
        Job(
            id: 7, campaign: "c", source: "s", profile: "p", state: state, attempts: attempts, maxAttempts: maxAttempts,
            runAt: t0, leaseOwner: owner, leaseExpiresAt: expiry, createdAt: t0, updatedAt: t0)
    }

    func running(attempts: Int = 1, maxAttempts: Int = 3) -> Job {
        job(.running, attempts: attempts, maxAttempts: maxAttempts, owner: "w", expiry: t0.addingTimeInterval(30))
    }

    @Test("claim takes a lease and counts an attempt")
    func claim() throws {
        let next = try machine.apply(.claim(owner: "w", leaseExpiresAt: t0.addingTimeInterval(30)), to: job(), at: t0)
        #expect(next.state == .running && next.attempts == 1 && next.leaseOwner == "w")
        #expect(next.leaseExpiresAt == t0.addingTimeInterval(30))
    }

    @Test("succeed stores the result and finishes")
    func succeed() throws {
        let next = try machine.apply(.succeed(owner: "w", result: Data("r".utf8)), to: running(), at: t0)
        #expect(next.state == .succeeded && next.result == Data("r".utf8) && next.finishedAt == t0)
        #expect(next.leaseOwner == nil && next.leaseExpiresAt == nil)
    }

    @Test("a permanent failure finishes with the failed item and a note")
    func failPermanently() throws {
        let error = JobError(code: "bad", message: "no")
        let next = try machine.apply(.failPermanently(owner: "w", error: error, result: Data("f".utf8)), to: running(), at: t0)
        #expect(next.state == .failed && next.lastError == error && next.result == Data("f".utf8))
        #expect(next.errorHistory.map(\.kind) == [.permanentError])
    }

    @Test("a transient failure retries at run-at, or is dead out of attempts")
    func failTransiently() throws {
        let error = JobError(code: "t", message: "later")
        let retryAt = t0.addingTimeInterval(10)
        let retrying = try machine.apply(.failTransiently(owner: "w", error: error, retryAt: retryAt), to: running(attempts: 2), at: t0)
        #expect(retrying.state == .retrying && retrying.runAt == retryAt && retrying.finishedAt == nil)
        let dead = try machine.apply(.failTransiently(owner: "w", error: error, retryAt: retryAt), to: running(attempts: 3), at: t0)
        #expect(dead.state == .dead && dead.lastError == error && dead.finishedAt == t0)
        #expect(dead.errorHistory.first?.attempt == 3)
    }

    @Test("rescue re-queues (attempt kept) or kills, only after expiry")
    func rescue() throws {
        let later = t0.addingTimeInterval(31)
        let queued = try machine.apply(.rescue, to: running(attempts: 1), at: later)
        #expect(queued.state == .queued && queued.attempts == 1 && queued.runAt == later && queued.leaseOwner == nil)
        #expect(queued.errorHistory.first?.kind == .rescue)
        let dead = try machine.apply(.rescue, to: running(attempts: 3), at: later)
        #expect(dead.state == .dead && dead.lastError?.code == "lease_expired")
        #expect(throws: JobStateMachineError.leaseNotExpired(jobID: 7)) {
            try machine.apply(.rescue, to: running(), at: t0)
        }
    }

    @Test("abandon (the lease holder is gone before its lease expired) re-queues with the attempt counted, or kills; only the holder's job")
    func abandon() throws {
        let queued = try machine.apply(.abandon(owner: "w"), to: running(attempts: 1), at: t0)
        #expect(queued.state == .queued && queued.attempts == 1 && queued.runAt == t0 && queued.leaseOwner == nil)
        #expect(queued.errorHistory.map(\.kind) == [.rescue] && queued.errorHistory.first?.code == JobStateMachine.ownerGoneCode)
        // Claimed again and abandoned again, up to the last attempt: dead, never a fourth claim.
        var current = queued
        for attempt in 2...3 {
            current = try machine.apply(.claim(owner: "w\(attempt)", leaseExpiresAt: t0.addingTimeInterval(30)), to: current, at: t0)
            #expect(current.attempts == attempt)
            current = try machine.apply(.abandon(owner: "w\(attempt)"), to: current, at: t0)
        }
        #expect(current.state == .dead && current.attempts == 3 && current.finishedAt == t0)
        #expect(current.lastError?.code == JobStateMachine.ownerGoneCode && current.lastError?.message.contains("attempt 3 of 3") == true)
        #expect(current.errorHistory.count == 3)
        #expect(throws: JobStateMachineError.leaseNotHeld(jobID: 7, owner: "other", actualOwner: "w")) {
            try machine.apply(.abandon(owner: "other"), to: running(), at: t0)
        }
        #expect(throws: JobStateMachineError.self) { try machine.apply(.abandon(owner: "w"), to: job(.queued), at: t0) }
    }

    @Test("release gives the attempt back; retryDead resets attempts")
    func releaseAndRetryDead() throws {
        let released = try machine.apply(.release(owner: "w"), to: running(attempts: 2), at: t0)
        #expect(released.state == .queued && released.attempts == 1)
        let requeued = try machine.apply(.retryDead, to: job(.dead, attempts: 3), at: t0)
        #expect(requeued.state == .queued && requeued.attempts == 0 && requeued.finishedAt == nil)
    }

    @Test("reprocess re-queues a finished job with attempts reset and its result cleared", arguments: [JobState.succeeded, .failed, .dead])
    func reprocess(_ state: JobState) throws {
        var finished = job(state, attempts: 2)
        finished.result = Data("{}".utf8)
        finished.finishedAt = t0
        finished.lastError = JobError(code: "corrupt_input", message: "bad")
        let again = try machine.apply(.reprocess(reason: "the source changed"), to: finished, at: t0.addingTimeInterval(5))
        #expect(again.state == .queued && again.attempts == 0 && again.runAt == t0.addingTimeInterval(5))
        #expect(again.result == nil && again.finishedAt == nil && again.lastError == nil)
        #expect(again.errorHistory.last?.kind == .requeue && again.errorHistory.last?.message == "the source changed")
    }

    @Test("heartbeat extends only the owner's lease")
    func heartbeat() throws {
        let extended = try machine.apply(.heartbeat(owner: "w", leaseExpiresAt: t0.addingTimeInterval(99)), to: running(), at: t0)
        #expect(extended.leaseExpiresAt == t0.addingTimeInterval(99) && extended.state == .running)
        #expect(throws: JobStateMachineError.leaseNotHeld(jobID: 7, owner: "x", actualOwner: "w")) {
            try machine.apply(.heartbeat(owner: "x", leaseExpiresAt: t0), to: running(), at: t0)
        }
    }

    @Test(
        "illegal transitions are refused",
        arguments: [
            (JobState.running, JobTransition.claim(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 0))),
            (.succeeded, .claim(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 0))),
            (.failed, .claim(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 0))),
            (.dead, .claim(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 0))),
            (.queued, .rescue),
            (.retrying, .rescue),
            (.queued, .retryDead),
            (.running, .retryDead),
            (.succeeded, .retryDead),
            (.queued, .reprocess(reason: "x")),
            (.running, .reprocess(reason: "x")),
            (.retrying, .reprocess(reason: "x")),
        ])
    func illegal(_ state: JobState, _ transition: JobTransition) {
        #expect(throws: JobStateMachineError.self) {
            try machine.apply(transition, to: job(state, owner: state == .running ? "w" : nil, expiry: t0), at: t0.addingTimeInterval(60))
        }
    }

    @Test(
        "lease-holder transitions on a job that is not running mean the lease is lost",
        arguments: [
            JobState.queued, .retrying, .succeeded, .failed, .dead,
        ])
    func leaseLost(_ state: JobState) {
        #expect(throws: JobStateMachineError.leaseNotHeld(jobID: 7, owner: "w", actualOwner: nil)) {
            try machine.apply(.succeed(owner: "w", result: Data()), to: job(state), at: t0)
        }
    }

    @Test("a retrying job is not claimable before its run-at")
    func claimBeforeRunAt() {
        var retrying = job(.retrying, attempts: 1)
        retrying.runAt = t0.addingTimeInterval(10)
        #expect(throws: JobStateMachineError.self) {
            try machine.apply(.claim(owner: "w", leaseExpiresAt: t0), to: retrying, at: t0)
        }
    }

    @Test("claim takes a retrying job once its run-at is due, with the attempt counted")
    func claimDueRetrying() throws {
        var retrying = job(.retrying, attempts: 1)
        retrying.runAt = t0.addingTimeInterval(10)
        retrying.lastError = JobError(code: "t", message: "later")
        let later = t0.addingTimeInterval(10)
        let next = try machine.apply(.claim(owner: "w", leaseExpiresAt: later.addingTimeInterval(30)), to: retrying, at: later)
        #expect(next.state == .running && next.attempts == 2 && next.leaseOwner == "w")
        #expect(next.leaseExpiresAt == later.addingTimeInterval(30) && next.updatedAt == later)
        #expect(next.lastError == retrying.lastError, "the last error stays until the job finishes")
    }

    @Test("claimable means a claimable state with its run-at due")
    func claimable() {
        var future = job(.queued)
        future.runAt = t0.addingTimeInterval(1)
        #expect(machine.isClaimable(job(.queued), at: t0))
        #expect(machine.isClaimable(job(.retrying), at: t0))
        #expect(!machine.isClaimable(future, at: t0))
        #expect(machine.isClaimable(future, at: t0.addingTimeInterval(1)))
        for state in [JobState.running, .succeeded, .failed, .dead] {
            #expect(!machine.isClaimable(job(state), at: t0), "\(state)")
        }
    }

    @Test("a transition applied to several jobs changes each, in order")
    func applyToEach() throws {
        let jobs = (1...3).map { id -> Job in
            var queued = job(.queued, attempts: id - 1)
            queued.id = JobID(id)
            return queued
        }
        let applied = try machine.apply(.claim(owner: "w", leaseExpiresAt: t0.addingTimeInterval(30)), toEach: jobs, at: t0)
        #expect(applied.jobs.map(\.id) == [1, 2, 3])
        #expect(applied.jobs.map(\.attempts) == [1, 2, 3])
        #expect(applied.jobs.allSatisfy { $0.state == .running && $0.leaseOwner == "w" })
        #expect(!applied.wakesWorkers, "claimed jobs are running: nothing for idle workers")
        #expect(try machine.apply(.rescue, toEach: [], at: t0) == AppliedTransition(jobs: [], wakesWorkers: false))
    }

    @Test("one refused job refuses the whole batch")
    func applyToEachAllOrNothing() {
        var dead = job(.dead, attempts: 3)
        dead.id = 8
        #expect(throws: JobStateMachineError.illegalTransition(jobID: 7, from: .queued, transition: "retryDead")) {
            try machine.apply(.retryDead, toEach: [dead, job(.queued)], at: t0)
        }
    }

    @Test("workers are woken only when a job comes out claimable at once")
    func wakesWorkers() throws {
        let later = t0.addingTimeInterval(31)
        let error = JobError(code: "t", message: "later")
        let cases: [(String, JobTransition, Job, Date, Bool)] = [
            ("release", .release(owner: "w"), running(), t0, true),
            ("rescue to queued", .rescue, running(attempts: 1), later, true),
            ("rescue to dead", .rescue, running(attempts: 3), later, false),
            ("retryDead", .retryDead, job(.dead, attempts: 3), t0, true),
            ("reprocess", .reprocess(reason: "changed"), job(.succeeded), t0, true),
            ("succeed", .succeed(owner: "w", result: Data()), running(), t0, false),
            ("heartbeat", .heartbeat(owner: "w", leaseExpiresAt: later), running(), t0, false),
            ("retry later", .failTransiently(owner: "w", error: error, retryAt: later), running(), t0, false),
            ("retry now", .failTransiently(owner: "w", error: error, retryAt: t0), running(), t0, true),
        ]
        for (name, transition, input, now, expected) in cases {
            let applied = try machine.apply(transition, toEach: [input], at: now)
            #expect(applied.wakesWorkers == expected, "\(name)")
        }
    }
}
