import Foundation
import Testing

@testable import PushMediaQueue

/// The jobs each queue operation selects, before any backend turns them into SQL.
@Suite("JobSelection")
struct JobSelectionTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    @Test("a claim selects due queued or retrying jobs, oldest run-at first, passing over locked ones")
    func claimable() {
        let selection = JobSelection.claimable(campaign: "spring", limit: 4, at: now)
        #expect(Set(selection.states ?? []) == [.queued, .retrying])
        #expect(selection.runAtDueBy == now && selection.leaseExpiredBy == nil)
        #expect(selection.campaign == "spring" && selection.limit == 4 && selection.ids == nil)
        #expect(selection.order == .runAtThenID && selection.skipsLockedJobs)
        #expect(JobSelection.claimable(campaign: nil, limit: 1, at: now).campaign == nil)
    }

    @Test("requeue selects only finished jobs: succeeded, failed or dead")
    func finished() {
        let selection = JobSelection.finished([3, 1])
        #expect(selection.ids == [3, 1])
        #expect(Set(selection.states ?? []) == [.succeeded, .failed, .dead])
        #expect(selection.limit == nil && !selection.skipsLockedJobs)
    }

    @Test("rescue selects running jobs whose lease expired; retryDead the dead ones of a campaign")
    func maintenance() {
        let rescue = JobSelection.expiredLeases(at: now)
        #expect(rescue.states == [.running] && rescue.leaseExpiredBy == now && rescue.skipsLockedJobs)
        let dead = JobSelection.dead(campaign: "c")
        #expect(dead.states == [.dead] && dead.campaign == "c" && !dead.skipsLockedJobs)
        let one = JobSelection.job(9)
        #expect(one.ids == [9] && one.states == nil && one.limit == nil)
    }
}
