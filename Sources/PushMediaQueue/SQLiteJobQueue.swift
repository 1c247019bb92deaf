import Foundation
import GRDB

/// A ``JobQueue`` in an embedded SQLite file (GRDB `DatabasePool`, WAL, busy timeout).
///
/// Every state change, claims included, reads and writes its jobs inside one IMMEDIATE transaction
/// (the write lock is taken up front), so claimers in other processes sharing the file are
/// excluded too. ``waitForWork(timeout:)`` polls (it wakes
/// early only for work added through this same instance).
public final class SQLiteJobQueue: TransitioningJobQueue {
    /// The database file.
    public let path: String
    let pool: DatabasePool
    let options: JobQueueOptions
    let machine = JobStateMachine()
    let wake = WakeSignal()

    /// Opens (creating the file and its folder when missing) and migrates the queue at `path`.
    /// - Throws: ``JobQueueError/openFailed(url:reason:)``.
    public init(path: String, options: JobQueueOptions = JobQueueOptions(), busyTimeout: TimeInterval = 10) throws {
        self.path = path
        self.options = options
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw JobQueueError.openFailed(url: "sqlite:\(path)", reason: "cannot create folder \(folder.path): \(error)")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "PushMediaQueue"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try Self.openPool(path: path, configuration: configuration, timeout: busyTimeout)
    }

    /// Opens and migrates the pool. Switching a new file to WAL does not wait on the busy timeout
    /// when another process opens it at the same moment, so a locked database is retried briefly.
    /// Two openers of a new file can also both see a migration as not applied; the one that
    /// loses finds its table already made, and retrying sees the migration recorded.
    private static func openPool(path: String, configuration: Configuration, timeout: TimeInterval) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(max(1, timeout))
        while true {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try migrator.migrate(pool)
                return pool
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || (error.message ?? "").contains("already exists")) && Date() < deadline
            {
                usleep(50_000)
            } catch {
                throw JobQueueError.openFailed(url: "sqlite:\(path)", reason: "\(error)")
            }
        }
    }

    // MARK: Enqueue

    public func enqueue(_ jobs: [NewJob]) async throws -> [Job] {
        guard !jobs.isEmpty else { return [] }
        let now = options.clock.now()
        let defaultMax = options.defaultMaxAttempts
        let result = try await writeImmediate { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO jobs (campaign, source, profile, state, attempts, max_attempts, run_at,
                                      error_history, created_at, updated_at)
                    VALUES (?, ?, ?, 'queued', 0, ?, ?, '[]', ?, ?)
                    ON CONFLICT (campaign, source, profile) DO NOTHING
                    """)
            let select = try db.cachedStatement(sql: "SELECT \(Self.jobColumns) FROM jobs WHERE campaign = ? AND source = ? AND profile = ?")
            var out: [Job] = []
            out.reserveCapacity(jobs.count)
            for job in jobs {
                let maxAttempts = max(1, job.maxAttempts ?? defaultMax)
                try insert.execute(arguments: [
                    job.campaign, job.source, job.profile, maxAttempts, (job.runAt ?? now).queueMilliseconds,
                    now.queueMilliseconds, now.queueMilliseconds,
                ])
                guard let row = try Row.fetchOne(select, arguments: [job.campaign, job.source, job.profile]) else {
                    throw JobQueueError.corruptRow(table: "jobs", reason: "enqueued job \(job.source) not found")
                }
                out.append(try Self.decodeJob(row))
            }
            return out
        }
        wake.signal()
        return result
    }

    // Claims, the lease-holder operations (heartbeat, complete, fail, release) and the maintenance
    // operations (rescue, retryDead, requeue) are in JobQueue+Transitions.swift, on top of
    // `transition(_:_:at:)` in SQLiteJobQueue+Rows.swift.

    // MARK: Status

    public func job(id: JobID) async throws -> Job? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.jobColumns) FROM jobs WHERE id = ?", arguments: [id]).map(Self.decodeJob)
        }
    }

    public func jobs(campaign: String) async throws -> [Job] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.jobColumns) FROM jobs WHERE campaign = ? ORDER BY source, profile, id", arguments: [campaign]
            ).map(Self.decodeJob)
        }
    }

    public func jobs(campaign: String, after: JobPosition?, limit: Int) async throws -> [Job] {
        // The unique index on (campaign, source, profile) gives both the order and the start.
        try await pool.read { db in
            if let after {
                return try Row.fetchAll(
                    db,
                    sql: "SELECT \(Self.jobColumns) FROM jobs WHERE campaign = ? AND (source, profile) > (?, ?) ORDER BY source, profile LIMIT ?",
                    arguments: [campaign, after.source, after.profile, limit]
                ).map(Self.decodeJob)
            }
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.jobColumns) FROM jobs WHERE campaign = ? ORDER BY source, profile LIMIT ?", arguments: [campaign, limit]
            ).map(Self.decodeJob)
        }
    }

    public func finishes(campaign: String, since: Date) async throws -> RecentFinishes {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*) AS n, MIN(finished_at) AS first FROM jobs WHERE campaign = ? AND finished_at >= ?",
                arguments: [campaign, since.queueMilliseconds])
            let first: Int64? = row?["first"]
            return RecentFinishes(count: row?["n"] ?? 0, first: first.map { Date(queueMilliseconds: $0) })
        }
    }

    public func deadJobs(campaign: String?, limit: Int) async throws -> [Job] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT \(Self.jobColumns) FROM jobs WHERE state = ? AND (? IS NULL OR campaign = ?) ORDER BY campaign, source, profile, id LIMIT ?",
                arguments: [JobState.dead.rawValue, campaign, campaign, limit]
            ).map(Self.decodeJob)
        }
    }

    public func counts(campaign: String?) async throws -> JobCounts {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT state, COUNT(*) AS n FROM jobs WHERE (? IS NULL OR campaign = ?) GROUP BY state",
                arguments: [campaign, campaign])
            return try Self.decodeCounts(rows)
        }
    }

    public func countsByCampaign() async throws -> [CampaignJobCounts] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT campaign, state, COUNT(*) AS n FROM jobs GROUP BY campaign, state ORDER BY campaign")
            var result: [CampaignJobCounts] = []
            for row in rows {
                let campaign: String = row["campaign"]
                let stateText: String = row["state"]
                guard let state = JobState(rawValue: stateText) else {
                    throw JobQueueError.corruptRow(table: "jobs", reason: "unknown state '\(stateText)'")
                }
                if result.last?.campaign != campaign {
                    result.append(CampaignJobCounts(campaign: campaign, counts: JobCounts()))
                }
                result[result.count - 1].counts.byState[state] = row["n"]
            }
            return result
        }
    }

    // MARK: Results cache

    public func cachedResult(contentSHA256: String, profile: String) async throws -> Data? {
        try await pool.read { db in
            try Data.fetchOne(
                db, sql: "SELECT result FROM results_cache WHERE content_sha256 = ? AND profile = ?",
                arguments: [contentSHA256.lowercased(), profile])
        }
    }

    public func storeCachedResult(_ result: Data, contentSHA256: String, profile: String) async throws {
        let now = options.clock.now()
        try await writeImmediate { db in
            try db.execute(
                sql: """
                    INSERT INTO results_cache (content_sha256, profile, result, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (content_sha256, profile) DO UPDATE SET result = excluded.result, created_at = excluded.created_at
                    """,
                arguments: [contentSHA256.lowercased(), profile, result, now.queueMilliseconds])
        }
    }

    // MARK: Waiting and closing

    public func waitForWork(timeout: Duration) async -> Bool {
        await wake.wait(timeout: timeout)
    }

    public func close() async {
        try? pool.close()
    }
}
