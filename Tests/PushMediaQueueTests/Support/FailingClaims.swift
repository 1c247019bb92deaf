import Foundation
import NIOConcurrencyHelpers
import PushMediaQueue

/// A queue whose first `failures` claims throw (a database that cannot be reached or read), then
/// passes everything to the real queue.
final class FailingClaims: JobQueue, @unchecked Sendable {
    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "the queue cannot be reached" }
    }

    let inner: any JobQueue
    let failures: Int
    let claims = NIOLockedValueBox(0)
    /// Called as the last failing claim throws.
    var onLastFailure: @Sendable () -> Void = {}

    init(_ inner: any JobQueue, failures: Int) {
        self.inner = inner
        self.failures = failures
    }

    func claim(owner: String, leaseDuration: Duration, limit: Int, campaign: String?) async throws -> [Job] {
        let claim = claims.withLockedValue {
            $0 += 1
            return $0
        }
        if claim <= failures {
            if claim == failures { onLastFailure() }
            throw Unreachable()
        }
        return try await inner.claim(owner: owner, leaseDuration: leaseDuration, limit: limit, campaign: campaign)
    }

    func enqueue(_ jobs: [NewJob]) async throws -> [Job] { try await inner.enqueue(jobs) }
    func heartbeat(jobID: JobID, owner: String, leaseDuration: Duration) async throws -> Bool {
        try await inner.heartbeat(jobID: jobID, owner: owner, leaseDuration: leaseDuration)
    }
    func complete(jobID: JobID, owner: String, result: Data) async throws -> Job {
        try await inner.complete(jobID: jobID, owner: owner, result: result)
    }
    func fail(jobID: JobID, owner: String, error: JobError, result: Data?) async throws -> Job {
        try await inner.fail(jobID: jobID, owner: owner, error: error, result: result)
    }
    func failTransiently(jobID: JobID, owner: String, error: JobError, retryDelay: Duration) async throws -> Job {
        try await inner.failTransiently(jobID: jobID, owner: owner, error: error, retryDelay: retryDelay)
    }
    func release(jobID: JobID, owner: String) async throws -> Job { try await inner.release(jobID: jobID, owner: owner) }
    func abandon(jobID: JobID, owner: String) async throws -> Job { try await inner.abandon(jobID: jobID, owner: owner) }
    func rescueExpiredLeases() async throws -> [Job] { try await inner.rescueExpiredLeases() }
    func retryDead(campaign: String?) async throws -> Int { try await inner.retryDead(campaign: campaign) }
    func requeue(jobIDs: [JobID], reason: String) async throws -> Int { try await inner.requeue(jobIDs: jobIDs, reason: reason) }
    func job(id: JobID) async throws -> Job? { try await inner.job(id: id) }
    func jobs(campaign: String) async throws -> [Job] { try await inner.jobs(campaign: campaign) }
    func jobs(campaign: String, after: JobPosition?, limit: Int) async throws -> [Job] {
        try await inner.jobs(campaign: campaign, after: after, limit: limit)
    }
    func finishes(campaign: String, since: Date) async throws -> RecentFinishes {
        try await inner.finishes(campaign: campaign, since: since)
    }
    func deadJobs(campaign: String?, limit: Int) async throws -> [Job] { try await inner.deadJobs(campaign: campaign, limit: limit) }
    func counts(campaign: String?) async throws -> JobCounts { try await inner.counts(campaign: campaign) }
    func countsByCampaign() async throws -> [CampaignJobCounts] { try await inner.countsByCampaign() }
    func cachedResult(contentSHA256: String, profile: String) async throws -> Data? {
        try await inner.cachedResult(contentSHA256: contentSHA256, profile: profile)
    }
    func storeCachedResult(_ result: Data, contentSHA256: String, profile: String) async throws {
        try await inner.storeCachedResult(result, contentSHA256: contentSHA256, profile: profile)
    }
    @discardableResult
    func waitForWork(timeout: Duration) async -> Bool { await inner.waitForWork(timeout: timeout) }
    func close() async { await inner.close() }
}
