import Foundation
import GRDB

extension SQLiteJobQueue {
    /// Runs `body` in an IMMEDIATE transaction (takes the write lock up front, so concurrent
    /// processes never both read the same claimable rows).
    func writeImmediate<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            var value: T?
            try db.inTransaction(.immediate) {
                value = try body(db)
                return .commit
            }
            guard let value else { throw JobQueueError.corruptRow(table: "jobs", reason: "transaction returned no value") }
            return value
        }
    }

    /// Reads a job, applies a transition and writes it back in one transaction; with
    /// `wakingWorkers`, this process' idle workers are woken after the commit.
    func transition(_ id: JobID, _ transition: JobTransition, wakingWorkers: Bool) async throws -> Job {
        let now = options.clock.now()
        let machine = self.machine
        let job = try await writeImmediate { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM jobs WHERE id = ?", arguments: [id]) else {
                throw JobQueueError.jobNotFound(id)
            }
            let next = try Self.apply(machine, transition, to: try Self.decodeJob(row), at: now)
            try Self.writeBack(next, db)
            return next
        }
        if wakingWorkers { wake.signal() }
        return job
    }

    static func writeBack(_ job: Job, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE jobs SET state = ?, attempts = ?, max_attempts = ?, run_at = ?, lease_owner = ?,
                    lease_expires_at = ?, last_error_code = ?, last_error_message = ?, error_history = ?,
                    result = ?, updated_at = ?, finished_at = ?
                WHERE id = ?
                """,
            arguments: [
                job.state.rawValue, job.attempts, job.maxAttempts, job.runAt.queueMilliseconds, job.leaseOwner,
                job.leaseExpiresAt?.queueMilliseconds, job.lastError?.code, job.lastError?.message,
                try JobNoteCoding.encode(job.errorHistory), job.result, job.updatedAt.queueMilliseconds,
                job.finishedAt?.queueMilliseconds, job.id,
            ])
    }

    static func decodeJob(_ row: Row) throws -> Job {
        let stateText: String = row["state"]
        guard let state = JobState(rawValue: stateText) else {
            throw JobQueueError.corruptRow(table: "jobs", reason: "unknown state '\(stateText)'")
        }
        let errorCode: String? = row["last_error_code"]
        let errorMessage: String? = row["last_error_message"]
        let leaseExpiry: Int64? = row["lease_expires_at"]
        let finished: Int64? = row["finished_at"]
        let history: String = row["error_history"]
        return Job(
            id: row["id"], campaign: row["campaign"], source: row["source"], profile: row["profile"], state: state,
            attempts: row["attempts"], maxAttempts: row["max_attempts"],
            runAt: Date(queueMilliseconds: row["run_at"]), leaseOwner: row["lease_owner"],
            leaseExpiresAt: leaseExpiry.map(Date.init(queueMilliseconds:)),
            lastError: errorCode.map { JobError(code: $0, message: errorMessage ?? "") },
            errorHistory: try JobNoteCoding.decode(history, table: "jobs"),
            result: row["result"], createdAt: Date(queueMilliseconds: row["created_at"]),
            updatedAt: Date(queueMilliseconds: row["updated_at"]), finishedAt: finished.map(Date.init(queueMilliseconds:)))
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
