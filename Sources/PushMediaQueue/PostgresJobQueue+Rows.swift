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

    /// Locks the selected jobs, applies `transition` to each and writes them back in one
    /// transaction; when the state machine says so, listening workers get a NOTIFY in the same
    /// transaction. A transition whose write is the same for every job (``UniformJobWrite``: a
    /// claim) is one statement instead: it locks, writes and returns the jobs as they were, and the
    /// state machine then gives the jobs as written (see ``uniformTransition(_:_:_:at:)``).
    func transition(_ selection: JobSelection, _ transition: JobTransition, at now: Date) async throws -> [Job] {
        if let write = machine.uniformWrite(transition, at: now) {
            return try await uniformTransition(write.restricting(selection), write, transition, at: now)
        }
        let names = self.names
        let logger = self.logger
        let machine = self.machine
        var select = SQLStatement()
        select.appendSelect(selection, names: names)
        let query = select.query
        return try await withConnectionRetry {
            try await self.client.withTransaction(logger: logger) { connection -> [Job] in
                let jobs = try await Self.decodeJobs(try await connection.query(query, logger: logger))
                let applied = try Self.apply(machine, transition, toEach: jobs, at: now)
                for job in applied.jobs {
                    try await Self.writeBack(job, names: names, connection: connection, logger: logger)
                }
                if applied.wakesWorkers {
                    try await connection.query("SELECT pg_notify(\(names.channel), '')", logger: logger)
                }
                return applied.jobs
            }
        }
    }

    /// One statement: `WITH picked AS (SELECT … FOR UPDATE [SKIP LOCKED]), UPDATE … FROM picked`,
    /// returning the picked jobs as they were. The `WHERE` holds the write's own guard
    /// (``UniformJobWrite/restricting(_:)``), so every picked job is one the state machine accepts;
    /// applying the transition to them gives exactly what the statement wrote.
    private func uniformTransition(
        _ selection: JobSelection, _ write: UniformJobWrite, _ transition: JobTransition, at now: Date
    ) async throws -> [Job] {
        let names = self.names
        let logger = self.logger
        let machine = self.machine
        var statement = SQLStatement()
        statement.sql = "WITH picked AS ("
        statement.appendSelect(selection, names: names)
        statement.sql += """
            ), changed AS (UPDATE \(names.jobs) AS j SET state = \(statement.bind(write.state.rawValue)), \
            attempts = j.attempts + \(statement.bind(write.attemptsDelta)), \
            lease_owner = \(statement.bind(write.leaseOwner)), lease_expires_at = \(statement.bind(write.leaseExpiresAt)), \
            updated_at = \(statement.bind(write.updatedAt)) FROM picked WHERE j.id = picked.id RETURNING j.id) \
            SELECT picked.* FROM picked JOIN changed ON changed.id = picked.id
            """
        statement.appendOrder(selection.order, prefix: "picked.")
        let query = statement.query
        let applied = try await withConnectionRetry {
            let before = try await Self.decodeJobs(try await self.client.query(query, logger: logger))
            return try Self.apply(machine, transition, toEach: before, at: now)
        }
        if applied.wakesWorkers {
            try await withConnectionRetry {
                _ = try await self.client.query("SELECT pg_notify(\(names.channel), '')", logger: logger)
            }
        }
        return applied.jobs
    }

    func fetchJobs(_ query: PostgresQuery) async throws -> [Job] {
        try await withConnectionRetry {
            try await Self.decodeJobs(try await self.client.query(query, logger: self.logger))
        }
    }
}
