import Foundation
import Logging
import PostgresNIO

extension PostgresJobQueue {
    /// The job columns, in the order ``decodeJobs(_:)`` reads them.
    static let columns = """
        id, campaign, source, profile, state, attempts, max_attempts, run_at, lease_owner, lease_expires_at, \
        last_error_code, last_error_message, error_history::text, result, created_at, updated_at, finished_at
        """

    static func state(_ text: String) throws -> JobState {
        guard let state = JobState(rawValue: text) else {
            throw JobQueueError.corruptRow(table: "jobs", reason: "unknown state '\(text)'")
        }
        return state
    }

    static func decodeJobs(_ rows: PostgresRowSequence) async throws -> [Job] {
        var jobs: [Job] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            do {
                let errorCode = try cells[10].decode(String?.self)
                let errorMessage = try cells[11].decode(String?.self)
                jobs.append(Job(
                    id: try cells[0].decode(Int64.self),
                    campaign: try cells[1].decode(String.self),
                    source: try cells[2].decode(String.self),
                    profile: try cells[3].decode(String.self),
                    state: try state(cells[4].decode(String.self)),
                    attempts: try cells[5].decode(Int.self),
                    maxAttempts: try cells[6].decode(Int.self),
                    runAt: try cells[7].decode(Date.self),
                    leaseOwner: try cells[8].decode(String?.self),
                    leaseExpiresAt: try cells[9].decode(Date?.self),
                    lastError: errorCode.map { JobError(code: $0, message: errorMessage ?? "") },
                    errorHistory: try JobNoteCoding.decode(cells[12].decode(String.self), table: "jobs"),
                    result: try cells[13].decode(Data?.self),
                    createdAt: try cells[14].decode(Date.self),
                    updatedAt: try cells[15].decode(Date.self),
                    finishedAt: try cells[16].decode(Date?.self)))
            } catch let error as PostgresDecodingError {
                throw JobQueueError.corruptRow(table: "jobs", reason: "\(String(reflecting: error))")
            }
        }
        return jobs
    }

    static func writeBack(_ job: Job, names: PostgresQueueNames, connection: PostgresConnection, logger: Logger) async throws {
        let history = try JobNoteCoding.encode(job.errorHistory)
        let result = job.result.map { ByteBuffer(bytes: $0) }
        try await connection.query("""
            UPDATE \(unescaped: names.jobs) SET state = \(job.state.rawValue), attempts = \(job.attempts),
                max_attempts = \(job.maxAttempts), run_at = \(job.runAt), lease_owner = \(job.leaseOwner),
                lease_expires_at = \(job.leaseExpiresAt), last_error_code = \(job.lastError?.code),
                last_error_message = \(job.lastError?.message), error_history = \(history)::jsonb,
                result = \(result), updated_at = \(job.updatedAt), finished_at = \(job.finishedAt)
            WHERE id = \(job.id)
            """, logger: logger)
    }

    /// Locks a job row, applies a transition and writes it back in one transaction; with
    /// `wakingWorkers`, listening workers get a NOTIFY in the same transaction.
    func transition(_ id: JobID, _ transition: JobTransition, wakingWorkers: Bool) async throws -> Job {
        let now = options.clock.now()
        let names = self.names
        let logger = self.logger
        let machine = self.machine
        return try await withConnectionRetry {
            try await self.client.withTransaction(logger: logger) { connection -> Job in
                let rows = try await connection.query("""
                    SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs) WHERE id = \(id) FOR UPDATE
                    """, logger: logger)
                guard let job = try await Self.decodeJobs(rows).first else { throw JobQueueError.jobNotFound(id) }
                let next = try Self.apply(machine, transition, to: job, at: now)
                try await Self.writeBack(next, names: names, connection: connection, logger: logger)
                if wakingWorkers {
                    try await connection.query("SELECT pg_notify(\(names.channel), '')", logger: logger)
                }
                return next
            }
        }
    }

    func fetchJobs(_ query: PostgresQuery) async throws -> [Job] {
        try await withConnectionRetry {
            try await Self.decodeJobs(try await self.client.query(query, logger: self.logger))
        }
    }
}
