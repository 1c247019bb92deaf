import Foundation
@testable import PushMediaQueue
import Testing

/// A claim on PostgreSQL is one statement whose `WHERE` and `SET` come from ``UniformJobWrite``;
/// these check that value against the state machine it stands for, without a database.
@Suite("UniformJobWrite")
struct UniformJobWriteTests {
    let machine = JobStateMachine()
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test("only a claim writes the same thing to every job")
    func onlyClaims() {
        let error = JobError(code: "e", message: "m")
        let others: [JobTransition] = [
            .heartbeat(owner: "w", leaseExpiresAt: t0), .succeed(owner: "w", result: Data()),
            .failPermanently(owner: "w", error: error, result: nil),
            .failTransiently(owner: "w", error: error, retryAt: t0), .rescue, .release(owner: "w"), .retryDead,
            .reprocess(reason: "r"),
        ]
        for transition in others {
            #expect(machine.uniformWrite(transition, at: t0) == nil, "\(transition.name)")
        }
        #expect(machine.uniformWrite(.claim(owner: "w", leaseExpiresAt: t0), at: t0) != nil)
    }

    @Test("the claim's guard accepts exactly the jobs the state machine lets a claim take, and its write is what the machine returns")
    func agreesWithTheMachine() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let state = JobState.allCases.randomElement(using: &random)!
            let attempts = Int.random(in: 0...5, using: &random)
            let runAt = t0.addingTimeInterval(Double(Int.random(in: -3...3, using: &random)))
            let owner: String? = state == .running ? "old" : nil
            let job = Job(
                id: 1, campaign: "c", source: "s", profile: "p", state: state, attempts: attempts, maxAttempts: 5,
                runAt: runAt, leaseOwner: owner, leaseExpiresAt: owner.map { _ in t0 }, createdAt: t0, updatedAt: t0)
            let transition = JobTransition.claim(owner: "w", leaseExpiresAt: t0.addingTimeInterval(30))
            let write = try #require(machine.uniformWrite(transition, at: t0))
            let byMachine = try? machine.apply(transition, to: job, at: t0)
            #expect(write.accepts(job) == (byMachine != nil), "\(state) run-at \(runAt)")
            if let byMachine {
                let written = write.applied(to: job)
                #expect(written == byMachine)
                #expect(written.state == .running && written.attempts == attempts + 1 && written.leaseOwner == "w")
            }
        }
    }

    @Test("restricting a selection keeps its other criteria and adds the write's guard")
    func restricting() throws {
        let write = try #require(machine.uniformWrite(.claim(owner: "w", leaseExpiresAt: t0), at: t0))
        let claimable = JobSelection.claimable(campaign: "c", limit: 3, at: t0)
        #expect(write.restricting(claimable) == claimable, "a claim's own selection already is the guard")
        let one = write.restricting(.job(4))
        #expect(one.ids == [4] && Set(one.states ?? []) == [.queued, .retrying] && one.runAtDueBy == t0)
        var wider = JobSelection(states: [.queued, .running, .dead], runAtDueBy: t0.addingTimeInterval(60))
        wider = write.restricting(wider)
        #expect(wider.states == [.queued] && wider.runAtDueBy == t0)
    }
}
