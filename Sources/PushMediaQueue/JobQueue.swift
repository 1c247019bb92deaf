import Foundation

/// A durable queue of media jobs. ``SQLiteJobQueue`` (embedded, default) and ``PostgresJobQueue``
/// (many machines) implement it with the same behaviour; ``JobQueueFactory`` opens one from a URL.
///
/// Lease-holder operations (`heartbeat`, `complete`, `fail`, `failTransiently`, `release`) check
/// that `owner` still holds the lease, so a worker that lost its lease cannot overwrite the job.
public protocol JobQueue: Sendable {
    /// Enqueues jobs in one transaction. A job whose campaign + source + profile already exists is
    /// not duplicated: the existing job is returned instead. Returns one job per request, in order.
    func enqueue(_ jobs: [NewJob]) async throws -> [Job]

    /// Claims up to `limit` due jobs (queued, or retrying with run-at due), oldest run-at first,
    /// optionally only from `campaign`; each gets a lease for `owner` until now + `leaseDuration`
    /// and counts one attempt. Exclusive: no job is handed to two claimers.
    func claim(owner: String, leaseDuration: Duration, limit: Int, campaign: String?) async throws -> [Job]

    /// Extends `owner`'s lease to now + `leaseDuration`. Returns false when the lease was lost.
    func heartbeat(jobID: JobID, owner: String, leaseDuration: Duration) async throws -> Bool

    /// Marks the job succeeded with its result. Throws ``JobQueueError/leaseLost(jobID:owner:)``
    /// when `owner` no longer holds the lease.
    @discardableResult
    func complete(jobID: JobID, owner: String, result: Data) async throws -> Job

    /// Fails the job permanently (finished at once, no retry); `result` holds the failed item.
    @discardableResult
    func fail(jobID: JobID, owner: String, error: JobError, result: Data?) async throws -> Job

    /// Fails the job transiently: it becomes retrying with run-at = now + `retryDelay`, or dead when
    /// it is out of attempts (keeping `error` as its last error).
    @discardableResult
    func failTransiently(jobID: JobID, owner: String, error: JobError, retryDelay: Duration) async throws -> Job

    /// Graceful shutdown: gives a running job back (queued, run-at now) without counting the attempt.
    @discardableResult
    func release(jobID: JobID, owner: String) async throws -> Job

    /// A running job whose lease holder `owner` is known to be gone (killed or crashed) before its
    /// lease expired: queued again with the attempt counted, or dead when out of attempts.
    @discardableResult
    func abandon(jobID: JobID, owner: String) async throws -> Job

    /// Sends running jobs whose lease expired back to queued (the attempt counts), or to dead when
    /// out of attempts, appending a rescue note. Returns the rescued jobs.
    @discardableResult
    func rescueExpiredLeases() async throws -> [Job]

    /// Re-queues the dead jobs of `campaign` (all campaigns when nil) with attempts reset.
    /// Returns how many were re-queued.
    @discardableResult
    func retryDead(campaign: String?) async throws -> Int

    /// Queues finished jobs (succeeded, failed or dead) to be processed again, with attempts reset
    /// and their result cleared; `reason` goes into their history. Jobs not finished are left as
    /// they are. Returns how many were re-queued.
    @discardableResult
    func requeue(jobIDs: [JobID], reason: String) async throws -> Int

    /// The job with this id, if any.
    func job(id: JobID) async throws -> Job?

    /// The jobs of a campaign (with their results), ordered by source (then profile).
    func jobs(campaign: String) async throws -> [Job]

    /// Up to `limit` jobs of a campaign (with their results) in the order of ``jobs(campaign:)``,
    /// starting after `after` (from the first when nil). Use ``forEachPage(campaign:pageSize:_:)``
    /// to read a campaign of any size in bounded memory.
    func jobs(campaign: String, after: JobPosition?, limit: Int) async throws -> [Job]

    /// How many jobs of `campaign` finished at or after `since`, and the earliest of them.
    func finishes(campaign: String, since: Date) async throws -> RecentFinishes

    /// The first `limit` dead jobs (of one campaign or all) with their errors, ordered by
    /// campaign and source (``counts(campaign:)`` says how many there are).
    func deadJobs(campaign: String?, limit: Int) async throws -> [Job]

    /// Counts by state for `campaign` (all campaigns together when nil).
    func counts(campaign: String?) async throws -> JobCounts

    /// Counts by state of every campaign, ordered by campaign.
    func countsByCampaign() async throws -> [CampaignJobCounts]

    /// The cached result of processing bytes with SHA-256 `contentSHA256` (hex) under `profile`.
    func cachedResult(contentSHA256: String, profile: String) async throws -> Data?

    /// Stores (or replaces) the cached result for (`contentSHA256`, `profile`).
    func storeCachedResult(_ result: Data, contentSHA256: String, profile: String) async throws

    /// Waits until new work may be available or `timeout` passes. Returns true when woken by a
    /// notification (PostgreSQL LISTEN/NOTIFY), false on timeout. SQLite just sleeps `timeout`
    /// (callers poll). Returns early (false) when the task is cancelled.
    @discardableResult
    func waitForWork(timeout: Duration) async -> Bool

    /// Closes connections. The queue must not be used afterwards.
    func close() async
}

extension JobQueue {
    /// Enqueues one job (idempotent: returns the existing job for the same campaign + source + profile).
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> Job {
        let jobs = try await enqueue([job])
        guard let first = jobs.first else { throw JobQueueError.invalidArgument("enqueue returned no job") }
        return first
    }

    /// Claims due jobs from any campaign.
    public func claim(owner: String, leaseDuration: Duration, limit: Int = 1) async throws -> [Job] {
        try await claim(owner: owner, leaseDuration: leaseDuration, limit: limit, campaign: nil)
    }
}
