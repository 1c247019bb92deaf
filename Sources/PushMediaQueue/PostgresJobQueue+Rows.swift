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
            jobs.append(try decodeJob(row.makeRandomAccess()))
        }
        return jobs
    }

    /// One job from the first 17 cells of a row, in the order of ``columns``.
    static func decodeJob(_ cells: PostgresRandomAccessRow) throws -> Job {
        do {
            let errorCode = try cells[10].decode(String?.self)
            let errorMessage = try cells[11].decode(String?.self)
            return Job(
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
                finishedAt: try cells[16].decode(Date?.self))
        } catch let error as PostgresDecodingError {
            throw JobQueueError.corruptRow(table: "jobs", reason: "\(String(reflecting: error))")
        }
    }

    static func writeBack(_ job: Job, names: PostgresQueueNames, connection: PostgresConnection, logger: Logger) async throws {
        let history = try JobNoteCoding.encode(job.errorHistory)
        let result = job.result.map { ByteBuffer(bytes: $0) }
        try await connection.query(
            """
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
            let jobs = try await uniformTransition(write.restricting(selection), write, transition, at: now)
            // Named jobs the write's guard passed over (lease lost, not found): the locking path
            // below finds them again and the state machine says why.
            if !jobs.isEmpty || selection.ids == nil { return jobs }
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

    /// One statement, one round trip. `picked` locks the jobs the selection picks
    /// (`FOR UPDATE [SKIP LOCKED]`, newest versions) and keeps only what the write changes, so
    /// the sort stays narrow; the `UPDATE … FROM picked` writes and returns each row as written
    /// plus those fields as they were. The `WHERE` holds the write's own guard
    /// (``UniformJobWrite/restricting(_:)``), so every picked job is one the state machine
    /// accepts; the state machine, applied to the jobs as they were, must give the rows as
    /// written, and any difference is reported as a corrupt row.
    private func uniformTransition(
        _ selection: JobSelection, _ write: UniformJobWrite, _ transition: JobTransition, at now: Date
    ) async throws -> [Job] {
        let names = self.names
        let logger = self.logger
        let machine = self.machine
        let fields = Self.uniformWriteFields(finishing: write.finish != nil)
        let written = Self.columns.split(separator: ",").map { "j.\($0.trimmingCharacters(in: .whitespaces))" }
        var statement = SQLStatement()
        statement.sql = "WITH picked AS ("
        statement.appendSelect(selection, names: names, columns: "id, run_at, \(fields.joined(separator: ", "))")
        statement.sql += """
            ), changed AS (UPDATE \(names.jobs) AS j SET state = \(statement.bind(write.state.rawValue)), \
            attempts = j.attempts + \(statement.bind(write.attemptsDelta)), \
            lease_owner = \(statement.bind(write.leaseOwner)), lease_expires_at = \(statement.bind(write.leaseExpiresAt)), \
            updated_at = \(statement.bind(write.updatedAt))
            """
        if let finish = write.finish {
            let result = finish.result.map { ByteBuffer(bytes: $0) }
            statement.sql += """
                , result = \(statement.bind(result)), last_error_code = \(statement.bind(finish.lastError?.code)), \
                last_error_message = \(statement.bind(finish.lastError?.message)), \
                finished_at = \(statement.bind(finish.finishedAt))
                """
        }
        statement.sql += """
             FROM picked WHERE j.id = picked.id \
            RETURNING \(written.joined(separator: ", ")), \
            \(fields.map { "picked.\($0) AS before_\($0)" }.joined(separator: ", "))) \
            SELECT * FROM changed
            """
        statement.appendOrder(selection.order)
        let query = statement.query
        let (before, after) = try await withConnectionRetry {
            var before: [Job] = []
            var after: [Job] = []
            for try await row in try await self.client.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                let job = try Self.decodeJob(cells)
                after.append(job)
                before.append(try Self.decodeBefore(cells, written: job, finishing: write.finish != nil))
            }
            return (before, after)
        }
        let applied = try Self.apply(machine, transition, toEach: before, at: now)
        guard applied.jobs.count == after.count, zip(applied.jobs, after).allSatisfy(Self.sameWithinMicroseconds) else {
            throw JobQueueError.corruptRow(
                table: names.jobs, reason: "\(transition.name) wrote \(after) where the state machine gives \(applied.jobs)")
        }
        if applied.wakesWorkers {
            try await withConnectionRetry {
                _ = try await self.client.query("SELECT pg_notify(\(names.channel), '')", logger: logger)
            }
        }
        return applied.jobs
    }

    /// The columns a ``UniformJobWrite`` sets: what the row held before them is all that differs.
    static func uniformWriteFields(finishing: Bool) -> [String] {
        ["state", "attempts", "lease_owner", "lease_expires_at", "updated_at"]
            + (finishing ? ["result", "last_error_code", "last_error_message", "finished_at"] : [])
    }

    /// The job before a uniform write: `written` with cells 17… (``uniformWriteFields(finishing:)``,
    /// as they were).
    static func decodeBefore(_ cells: PostgresRandomAccessRow, written: Job, finishing: Bool) throws -> Job {
        do {
            var before = written
            before.state = try state(cells[17].decode(String.self))
            before.attempts = try cells[18].decode(Int.self)
            before.leaseOwner = try cells[19].decode(String?.self)
            before.leaseExpiresAt = try cells[20].decode(Date?.self)
            before.updatedAt = try cells[21].decode(Date.self)
            if finishing {
                before.result = try cells[22].decode(Data?.self)
                let code = try cells[23].decode(String?.self)
                let message = try cells[24].decode(String?.self)
                before.lastError = code.map { JobError(code: $0, message: message ?? "") }
                before.finishedAt = try cells[25].decode(Date?.self)
            }
            return before
        } catch let error as PostgresDecodingError {
            throw JobQueueError.corruptRow(table: "jobs", reason: "\(String(reflecting: error))")
        }
    }

    /// Whether two jobs are equal, their times compared to PostgreSQL's microseconds.
    static func sameWithinMicroseconds(_ a: Job, _ b: Job) -> Bool {
        func close(_ p: Date?, _ q: Date?) -> Bool {
            switch (p, q) {
            case (nil, nil): true
            case (let p?, let q?): abs(p.timeIntervalSince(q)) < 2e-6
            default: false
            }
        }
        guard close(a.runAt, b.runAt), close(a.leaseExpiresAt, b.leaseExpiresAt), close(a.createdAt, b.createdAt),
            close(a.updatedAt, b.updatedAt), close(a.finishedAt, b.finishedAt)
        else { return false }
        var b = b
        (b.runAt, b.leaseExpiresAt, b.createdAt, b.updatedAt, b.finishedAt) =
            (a.runAt, a.leaseExpiresAt, a.createdAt, a.updatedAt, a.finishedAt)
        return a == b
    }

    func fetchJobs(_ query: PostgresQuery) async throws -> [Job] {
        try await withConnectionRetry {
            try await Self.decodeJobs(try await self.client.query(query, logger: self.logger))
        }
    }
}
