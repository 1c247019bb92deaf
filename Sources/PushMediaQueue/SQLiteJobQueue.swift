import Foundation
import GRDB

/// A ``JobQueue`` in an embedded SQLite file (GRDB `DatabasePool`, WAL, busy timeout).
///
/// Claims run as a single `UPDATE … RETURNING` inside an IMMEDIATE transaction, so claimers in
/// other processes sharing the file are excluded too. ``waitForWork(timeout:)`` polls (it wakes
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

    // MARK: Enqueue and claim

    public func enqueue(_ jobs: [NewJob]) async throws -> [Job] {
        guard !jobs.isEmpty else { return [] }
        let now = options.clock.now()
        let defaultMax = options.defaultMaxAttempts
        let result = try await writeImmediate { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO jobs (campaign, source, profile, state, attempts, max_attempts, run_at,
                                  error_history, created_at, updated_at)
                VALUES (?, ?, ?, 'queued', 0, ?, ?, '[]', ?, ?)
                ON CONFLICT (campaign, source, profile) DO NOTHING
                """)
            let select = try db.cachedStatement(sql: "SELECT * FROM jobs WHERE campaign = ? AND source = ? AND profile = ?")
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

    public func claim(owner: String, leaseDuration: Duration, limit: Int, campaign: String?) async throws -> [Job] {
        guard limit > 0 else { return [] }
        let now = options.clock.now()
        let expiry = now.adding(leaseDuration)
        let states = JobStateMachine.claimableStates.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let campaignFilter = campaign == nil ? "" : "AND campaign = ?"
        var arguments: StatementArguments = [owner, expiry.queueMilliseconds, now.queueMilliseconds, now.queueMilliseconds]
        if let campaign { arguments += [campaign] }
        arguments += [limit]
        let sql = """
            UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?, updated_at = ?
            WHERE id IN (
                SELECT id FROM jobs WHERE state IN (\(states)) AND run_at <= ? \(campaignFilter)
                ORDER BY run_at, id LIMIT ?)
            RETURNING *
            """
        let finalArguments = arguments
        let jobs = try await writeImmediate { db in
            try Row.fetchAll(db, sql: sql, arguments: finalArguments).map(Self.decodeJob)
        }
        return jobs.sorted { ($0.runAt, $0.id) < ($1.runAt, $1.id) }
    }

    // The lease-holder operations (heartbeat, complete, fail, release) are in JobQueue+LeaseHolder.swift.

    // MARK: Maintenance

    public func rescueExpiredLeases() async throws -> [Job] {
        let now = options.clock.now()
        let machine = self.machine
        let rescued = try await writeImmediate { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM jobs WHERE state = 'running' AND lease_expires_at <= ? ORDER BY id",
                arguments: [now.queueMilliseconds])
            return try rows.map { row in
                let next = try Self.apply(machine, .rescue, to: try Self.decodeJob(row), at: now)
                try Self.writeBack(next, db)
                return next
            }
        }
        if rescued.contains(where: { $0.state == .queued }) { wake.signal() }
        return rescued
    }

    public func retryDead(campaign: String?) async throws -> Int {
        try await requeueSelected(
            .retryDead, sql: "SELECT * FROM jobs WHERE state = 'dead' AND (? IS NULL OR campaign = ?) ORDER BY id",
            arguments: [campaign, campaign])
    }

    public func requeue(jobIDs: [JobID], reason: String) async throws -> Int {
        guard !jobIDs.isEmpty else { return 0 }
        let placeholders = Array(repeating: "?", count: jobIDs.count).joined(separator: ", ")
        return try await requeueSelected(
            .reprocess(reason: reason),
            sql: "SELECT * FROM jobs WHERE id IN (\(placeholders)) AND state IN ('succeeded', 'failed', 'dead') ORDER BY id",
            arguments: StatementArguments(jobIDs))
    }

    /// Applies `transition` to every job `sql` selects, in one write transaction, and wakes idle
    /// workers when any was re-queued. Returns how many.
    private func requeueSelected(_ transition: JobTransition, sql: String, arguments: StatementArguments) async throws -> Int {
        let now = options.clock.now()
        let machine = self.machine
        let count = try await writeImmediate { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            for row in rows {
                try Self.writeBack(try Self.apply(machine, transition, to: try Self.decodeJob(row), at: now), db)
            }
            return rows.count
        }
        if count > 0 { wake.signal() }
        return count
    }

    // MARK: Status

    public func job(id: JobID) async throws -> Job? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM jobs WHERE id = ?", arguments: [id]).map(Self.decodeJob)
        }
    }

    public func jobs(campaign: String) async throws -> [Job] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM jobs WHERE campaign = ? ORDER BY source, profile, id", arguments: [campaign]
            ).map(Self.decodeJob)
        }
    }

    public func deadJobs(campaign: String?) async throws -> [Job] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM jobs WHERE state = 'dead' AND (? IS NULL OR campaign = ?) ORDER BY campaign, source, profile, id",
                arguments: [campaign, campaign]
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
