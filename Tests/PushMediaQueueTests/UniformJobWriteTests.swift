import Foundation
import Testing

@testable import PushMediaQueue

/// A claim, a heartbeat and a success on PostgreSQL are one statement each, whose `WHERE` and
/// `SET` come from ``UniformJobWrite``;
/// these check that value against the state machine it stands for, without a database.
@Suite("UniformJobWrite")
struct UniformJobWriteTests {
    let machine = JobStateMachine()
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test("a claim, a heartbeat and a success write the same thing to every job; the others do not")
    func which() {
        let error = JobError(code: "e", message: "m")
        let others: [JobTransition] = [
            .failPermanently(owner: "w", error: error, result: nil),
            .failTransiently(owner: "w", error: error, retryAt: t0), .rescue, .release(owner: "w"), .retryDead,
            .reprocess(reason: "r"),
        ]
        for transition in others {
            #expect(machine.uniformWrite(transition, at: t0) == nil, "\(transition.name)")
        }
        for transition in uniform {
            #expect(machine.uniformWrite(transition, at: t0) != nil, "\(transition.name)")
        }
    }

    let uniform: [JobTransition] = [
        .claim(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 1_000_030)),
        .heartbeat(owner: "w", leaseExpiresAt: Date(timeIntervalSince1970: 1_000_060)),
        .succeed(owner: "w", result: Data("{\"ok\":true}".utf8)),
    ]

    @Test("each write's guard accepts exactly the jobs the state machine accepts, and its write is what the machine returns")
    func agreesWithTheMachine() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let state = JobState.allCases.randomElement(using: &random)!
            let attempts = Int.random(in: 0...5, using: &random)
            let runAt = t0.addingTimeInterval(Double(Int.random(in: -3...3, using: &random)))
            let owner = [nil, "w", "other"].randomElement(using: &random)!
            let lastError = Bool.random(using: &random) ? JobError(code: "t", message: "before") : nil
            let job = Job(
                id: 1, campaign: "c", source: "s", profile: "p", state: state, attempts: attempts, maxAttempts: 5,
                runAt: runAt, leaseOwner: owner, leaseExpiresAt: owner.map { _ in t0 }, lastError: lastError,
                createdAt: t0, updatedAt: t0)
            let transition = uniform.randomElement(using: &random)!
            let write = try #require(machine.uniformWrite(transition, at: t0))
            let byMachine = try? machine.apply(transition, to: job, at: t0)
            #expect(write.accepts(job) == (byMachine != nil), "\(transition.name) from \(state), owner \(owner ?? "none")")
            if let byMachine {
                #expect(write.applied(to: job) == byMachine)
            }
        }
    }

    @Test("what each write sets")
    func writes() throws {
        let running = Job(
            id: 1, campaign: "c", source: "s", profile: "p", state: .running, attempts: 2, maxAttempts: 5, runAt: t0,
            leaseOwner: "w", leaseExpiresAt: t0, lastError: JobError(code: "t", message: "m"), createdAt: t0, updatedAt: t0)
        let later = t0.addingTimeInterval(5)
        let beat = try #require(machine.uniformWrite(uniform[1], at: later)).applied(to: running)
        #expect(beat.state == .running && beat.leaseOwner == "w" && beat.attempts == 2)
        #expect(beat.leaseExpiresAt == Date(timeIntervalSince1970: 1_000_060) && beat.updatedAt == later)
        #expect(beat.lastError == running.lastError && beat.finishedAt == nil)
        let done = try #require(machine.uniformWrite(uniform[2], at: later)).applied(to: running)
        #expect(done.state == .succeeded && done.leaseOwner == nil && done.leaseExpiresAt == nil && done.attempts == 2)
        #expect(done.result == Data("{\"ok\":true}".utf8) && done.lastError == nil && done.finishedAt == later)
    }

    @Test("a finishing write replaces result, last error and finish time, nil included; a non-finishing one keeps them")
    func finishReplacesNil() {
        let later = t0.addingTimeInterval(5)
        let old = Job(
            id: 1, campaign: "c", source: "s", profile: "p", state: .running, attempts: 1, runAt: t0,
            leaseOwner: "w", leaseExpiresAt: t0, lastError: JobError(code: "t", message: "m"),
            result: Data("old".utf8), createdAt: t0, updatedAt: t0, finishedAt: t0)
        func write(_ finish: UniformJobWrite.Finish?) -> UniformJobWrite {
            UniformJobWrite(
                fromStates: [.running], runAtDueBy: nil, leaseHeldBy: "w", state: .succeeded, attemptsDelta: 0,
                leaseOwner: nil, leaseExpiresAt: nil, updatedAt: later, finish: finish)
        }
        let cleared = write(.init(result: nil, lastError: nil, finishedAt: later)).applied(to: old)
        #expect(cleared.result == nil && cleared.lastError == nil && cleared.finishedAt == later)
        let error = JobError(code: "e", message: "n")
        let set = write(.init(result: Data("new".utf8), lastError: error, finishedAt: later)).applied(to: old)
        #expect(set.result == Data("new".utf8) && set.lastError == error && set.finishedAt == later)
        let untouched = write(nil).applied(to: old)
        #expect(untouched.result == old.result && untouched.lastError == old.lastError && untouched.finishedAt == t0)
    }

    @Test("restricting a selection keeps its other criteria and adds the write's guard")
    func restricting() throws {
        let write = try #require(machine.uniformWrite(.claim(owner: "w", leaseExpiresAt: t0), at: t0))
        let claimable = JobSelection.claimable(campaign: "c", limit: 3, at: t0)
        #expect(write.restricting(claimable) == claimable, "a claim's own selection already is the guard")
        let one = write.restricting(.job(4))
        #expect(one.ids == [4] && Set(one.states ?? []) == [.queued, .retrying] && one.runAtDueBy == t0)
        let heartbeat = try #require(machine.uniformWrite(uniform[1], at: t0)).restricting(.job(4))
        #expect(heartbeat.ids == [4] && heartbeat.states == [.running] && heartbeat.leaseOwner == "w")
        #expect(heartbeat.runAtDueBy == nil)
        var wider = JobSelection(states: [.queued, .running, .dead], runAtDueBy: t0.addingTimeInterval(60))
        wider = write.restricting(wider)
        #expect(wider.states == [.queued] && wider.runAtDueBy == t0)
    }
}
