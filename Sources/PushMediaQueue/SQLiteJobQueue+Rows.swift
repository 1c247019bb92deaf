import Foundation
import GRDB

extension SQLiteJobQueue {
    /// Runs `body` in an IMMEDIATE transaction (takes the write lock up front, so concurrent
    /// processes never both read the same claimable rows).
    /// A database that cannot be written (full, read-only, an I/O error) throws
    /// ``StorageFailure``.
    func writeImmediate<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try body(db)
                    return .commit
                }
                guard let value else { throw JobQueueError.corruptRow(table: "jobs", reason: "transaction returned no value") }
                return value
            }
        } catch let error as DatabaseError where Self.storageResultCodes.contains(error.resultCode) {
            throw StorageFailure(place: path, reason: "SQLite: \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// SQLite's result codes for a database file that cannot be written: full (or a disk out of
    /// space for its journal), an I/O error, read-only, cannot be opened.
    static let storageResultCodes: [ResultCode] = [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN]

    /// Locks the selected jobs (the IMMEDIATE transaction holds the write lock), applies `transition`
    /// to each and writes them back in one transaction; this process' idle workers are woken after
    /// the commit when the state machine says so.
    func transition(_ selection: JobSelection, _ transition: JobTransition, at now: Date) async throws -> [Job] {
        let (sql, arguments) = Self.selectStatement(selection)
        let machine = self.machine
        let applied = try await writeImmediate { db in
            let jobs = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map(Self.decodeJob)
            let applied = try Self.apply(machine, transition, toEach: jobs, at: now)
            for job in applied.jobs { try Self.writeBack(job, db) }
            return applied
        }
        if applied.wakesWorkers { wake.signal() }
        return applied.jobs
    }

    /// The `SELECT` of the jobs `selection` picks, with its arguments.
    static func selectStatement(_ selection: JobSelection) -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        func placeholders(_ count: Int) -> String {
            Array(repeating: "?", count: count).joined(separator: ", ")
        }
        if let ids = selection.ids {
            conditions.append("id IN (\(placeholders(ids.count)))")
            arguments += StatementArguments(ids)
        }
        if let states = selection.states {
            conditions.append("state IN (\(placeholders(states.count)))")
            arguments += StatementArguments(states.map(\.rawValue))
        }
        if let campaign = selection.campaign {
            conditions.append("campaign = ?")
            arguments += [campaign]
        }
        if let due = selection.runAtDueBy {
            conditions.append("run_at <= ?")
            arguments += [due.queueMilliseconds]
        }
        if let owner = selection.leaseOwner {
            conditions.append("lease_owner = ?")
            arguments += [owner]
        }
        if let expiry = selection.leaseExpiredBy {
            conditions.append("lease_expires_at <= ?")
            arguments += [expiry.queueMilliseconds]
        }
        var sql = "SELECT \(jobColumns) FROM jobs"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        switch selection.order {
        case .id: sql += " ORDER BY id"
        case .runAtThenID: sql += " ORDER BY run_at, id"
        }
        if let limit = selection.limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return (sql, arguments)
    }

    static func writeBack(_ job: Job, _ db: Database) throws {
        let update = try db.cachedStatement(
            sql: """
                UPDATE jobs SET state = ?, attempts = ?, max_attempts = ?, run_at = ?, lease_owner = ?,
                    lease_expires_at = ?, last_error_code = ?, last_error_message = ?, error_history = ?,
                    result = ?, updated_at = ?, finished_at = ?
                WHERE id = ?
                """)
        try update.execute(arguments: [
            job.state.rawValue, job.attempts, job.maxAttempts, job.runAt.queueMilliseconds, job.leaseOwner,
            job.leaseExpiresAt?.queueMilliseconds, job.lastError?.code, job.lastError?.message,
            try JobNoteCoding.encode(job.errorHistory), job.result, job.updatedAt.queueMilliseconds,
            job.finishedAt?.queueMilliseconds, job.id,
        ])
    }

    /// The columns every job `SELECT` reads, in the order ``decodeJob(_:)`` reads them by index
    /// (by name, GRDB looks each column up case-insensitively: a quarter of the time a manifest
    /// of 100,000 jobs took).
    static let jobColumns = """
        id, campaign, source, profile, state, attempts, max_attempts, run_at, lease_owner, lease_expires_at, \
        last_error_code, last_error_message, error_history, result, created_at, updated_at, finished_at
        """

    /// The job of a row selected with ``jobColumns``.
    static func decodeJob(_ row: Row) throws -> Job {
        let stateText: String = row[4]
        guard let state = JobState(rawValue: stateText) else {
            throw JobQueueError.corruptRow(table: "jobs", reason: "unknown state '\(stateText)'")
        }
        let leaseExpiry: Int64? = row[9]
        let errorCode: String? = row[10]
        let errorMessage: String? = row[11]
        let history: String = row[12]
        let finished: Int64? = row[16]
        return Job(
            id: row[0], campaign: row[1], source: row[2], profile: row[3], state: state,
            attempts: row[5], maxAttempts: row[6],
            runAt: Date(queueMilliseconds: row[7]), leaseOwner: row[8],
            leaseExpiresAt: leaseExpiry.map(Date.init(queueMilliseconds:)),
            lastError: errorCode.map { JobError(code: $0, message: errorMessage ?? "") },
            errorHistory: try JobNoteCoding.decode(history, table: "jobs"),
            result: row[13], createdAt: Date(queueMilliseconds: row[14]),
            updatedAt: Date(queueMilliseconds: row[15]), finishedAt: finished.map(Date.init(queueMilliseconds:)))
    }

    static func decodeCounts(_ rows: [Row]) throws -> JobCounts {
        var counts = JobCounts()
        for row in rows {
            let stateText: String = row["state"]
            guard let state = JobState(rawValue: stateText) else {
                throw JobQueueError.corruptRow(table: "jobs", reason: "unknown state '\(stateText)'")
            }
            counts.byState[state] = row["n"]
        }
        return counts
    }
}
