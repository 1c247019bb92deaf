import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A ``JobQueue`` in PostgreSQL, for many worker machines sharing one queue.
///
/// - Uses a pooled `PostgresClient` (it reconnects after a server restart); operations failing with
///   a connection error are retried a few times with a short delay.
/// - Every state change locks its jobs (`SELECT … FOR UPDATE`; claims and rescues with `SKIP LOCKED`),
///   applies the state machine and writes them back in one transaction; a claim, a heartbeat and a
///   success (``UniformJobWrite``) do all of it in one statement.
/// - Enqueue, and every change that leaves a job claimable (release, rescue, ``retryDead(campaign:)``,
///   ``requeue(jobIDs:reason:)``), NOTIFY a channel; ``waitForWork(timeout:)``
///   LISTENs on it (one dedicated connection, opened on first use), with the timeout as polling fallback.
/// - Tables (and the channel) are named with a prefix (default `pushmedia_`) in an optional schema;
///   versioned migrations run at open under `pg_advisory_xact_lock`, each once, in a transaction.
public final class PostgresJobQueue: TransitioningJobQueue {
    /// Where the queue lives.
    public let configuration: PostgresQueueConfiguration
    let client: PostgresClient
    let names: PostgresQueueNames
    let options: JobQueueOptions
    let logger: Logger
    let machine = JobStateMachine()
    let wake = WakeSignal()
    let listenerReady = WakeSignal()
    /// How often an operation failing with a connection error is retried.
    let connectionRetries: Int
    private let tasks = NIOLockedValueBox(Tasks())

    private struct Tasks {
        var run: Task<Void, Never>?
        var listener: Task<Void, Never>?
        var listening = false
        var closed = false
    }

    /// Connects, creates the schema if needed and applies pending migrations, giving up after
    /// `openTimeout` (the pool itself keeps retrying an unreachable server for a while).
    /// - Throws: ``JobQueueError/openFailed(url:reason:)`` when the server cannot be reached or migrated.
    public init(
        configuration: PostgresQueueConfiguration, options: JobQueueOptions = JobQueueOptions(),
        logger: Logger = Logger(label: "pushmedia.queue.postgres"), connectionRetries: Int = 5,
        openTimeout: Duration = .seconds(30)
    ) async throws {
        self.configuration = configuration
        self.options = options
        self.logger = logger
        self.connectionRetries = connectionRetries
        names = PostgresQueueNames(schema: configuration.schema, prefix: configuration.prefix)
        guard configuration.schema.map(PostgresQueueConfiguration.isValidIdentifier) ?? true,
            configuration.prefix.isEmpty || PostgresQueueConfiguration.isValidIdentifier(configuration.prefix)
        else {
            throw JobQueueError.openFailed(
                url: configuration.description, reason: "schema and prefix must be lower-case SQL identifiers")
        }
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        let tls: PostgresClient.Configuration.TLS
        switch configuration.sslMode {
        case .disable:
            tls = .disable
        case .prefer:
            tlsConfiguration.certificateVerification = .none
            tls = .prefer(tlsConfiguration)
        case .require:
            tlsConfiguration.certificateVerification = .none
            tls = .require(tlsConfiguration)
        case .verifyFull:
            tls = .require(tlsConfiguration)
        }
        var clientConfiguration = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        clientConfiguration.options.maximumConnections = max(2, configuration.maximumConnections)
        clientConfiguration.options.minimumConnections = 0
        clientConfiguration.options.connectTimeout = .seconds(5)
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.client = client
        tasks.withLockedValue { $0.run = Task { await client.run() } }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.migrate() }
                group.addTask {
                    try await Task.sleep(for: openTimeout)
                    throw JobQueueError.connectionFailed(reason: "no answer within \(openTimeout)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await close()
            throw JobQueueError.openFailed(url: configuration.description, reason: "\(String(reflecting: error))")
        }
    }

    // MARK: Enqueue

    public func enqueue(_ jobs: [NewJob]) async throws -> [Job] {
        guard !jobs.isEmpty else { return [] }
        let now = options.clock.now()
        let campaigns = jobs.map(\.campaign)
        let sources = jobs.map(\.source)
        let profiles = jobs.map(\.profile)
        let maxAttempts = jobs.map { max(1, $0.maxAttempts ?? options.defaultMaxAttempts) }
        let runAts = jobs.map { $0.runAt ?? now }
        let names = self.names
        let logger = self.logger
        let stored = try await withConnectionRetry {
            try await self.client.withTransaction(logger: logger) { connection -> [Job] in
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: names.jobs) (campaign, source, profile, state, attempts, max_attempts,
                        run_at, error_history, created_at, updated_at)
                    SELECT c, s, p, 'queued', 0, m, r, '[]'::jsonb, \(now), \(now)
                    FROM UNNEST(\(campaigns)::text[], \(sources)::text[], \(profiles)::text[], \(maxAttempts)::bigint[],
                                \(runAts)::timestamptz[]) AS u(c, s, p, m, r)
                    ON CONFLICT (campaign, source, profile) DO NOTHING
                    """, logger: logger)
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs) AS j
                    JOIN (SELECT DISTINCT c, s, p FROM UNNEST(\(campaigns)::text[], \(sources)::text[], \(profiles)::text[]) AS u(c, s, p)) AS u
                      ON j.campaign = u.c AND j.source = u.s AND j.profile = u.p
                    """, logger: logger)
                let jobs = try await Self.decodeJobs(rows)
                try await connection.query("SELECT pg_notify(\(names.channel), '')", logger: logger)
                return jobs
            }
        }
        let byIdentity = Dictionary(stored.map { ($0.identity, $0) }, uniquingKeysWith: { first, _ in first })
        return try jobs.map { request in
            guard let job = byIdentity[request.identity] else {
                throw JobQueueError.corruptRow(table: names.jobs, reason: "enqueued job \(request.source) not found")
            }
            return job
        }
    }

    // Claims, the lease-holder operations (heartbeat, complete, fail, release) and the maintenance
    // operations (rescue, retryDead, requeue) are in JobQueue+Transitions.swift, on top of
    // `transition(_:_:at:)` in PostgresJobQueue+Rows.swift.

    // MARK: Status

    public func job(id: JobID) async throws -> Job? {
        try await fetchJobs("SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs) WHERE id = \(id)").first
    }

    public func jobs(campaign: String) async throws -> [Job] {
        try await fetchJobs(
            """
            SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs) WHERE campaign = \(campaign)
            ORDER BY source COLLATE "C", profile COLLATE "C", id
            """)
    }

    public func jobs(campaign: String, after: JobPosition?, limit: Int) async throws -> [Job] {
        // The index on (campaign, source COLLATE "C", profile COLLATE "C") gives both the order
        // and the start (migration 2).
        if let after {
            return try await fetchJobs(
                """
                SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs)
                WHERE campaign = \(campaign) AND (source COLLATE "C", profile COLLATE "C") > (\(after.source), \(after.profile))
                ORDER BY source COLLATE "C", profile COLLATE "C" LIMIT \(limit)
                """)
        }
        return try await fetchJobs(
            """
            SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs) WHERE campaign = \(campaign)
            ORDER BY source COLLATE "C", profile COLLATE "C" LIMIT \(limit)
            """)
    }

    public func finishes(campaign: String, since: Date) async throws -> RecentFinishes {
        let names = self.names
        return try await withConnectionRetry {
            let rows = try await self.client.query(
                """
                SELECT COUNT(*), MIN(finished_at) FROM \(unescaped: names.jobs)
                WHERE campaign = \(campaign) AND finished_at >= \(since)
                """, logger: self.logger)
            for try await (count, first) in rows.decode((Int64, Date?).self) {
                return RecentFinishes(count: Int(count), first: first)
            }
            return RecentFinishes(count: 0, first: nil)
        }
    }

    public func deadJobs(campaign: String?, limit: Int) async throws -> [Job] {
        try await fetchJobs(
            """
            SELECT \(unescaped: Self.columns) FROM \(unescaped: names.jobs)
            WHERE state = \(JobState.dead.rawValue) AND (\(campaign)::text IS NULL OR campaign = \(campaign))
            ORDER BY campaign COLLATE "C", source COLLATE "C", profile COLLATE "C", id
            LIMIT \(limit)
            """)
    }

    public func counts(campaign: String?) async throws -> JobCounts {
        let names = self.names
        return try await withConnectionRetry {
            let rows = try await self.client.query(
                """
                SELECT state, COUNT(*) FROM \(unescaped: names.jobs)
                WHERE (\(campaign)::text IS NULL OR campaign = \(campaign)) GROUP BY state
                """, logger: self.logger)
            var counts = JobCounts()
            for try await (stateText, count) in rows.decode((String, Int64).self) {
                counts.byState[try Self.state(stateText)] = Int(count)
            }
            return counts
        }
    }

    public func countsByCampaign() async throws -> [CampaignJobCounts] {
        let names = self.names
        return try await withConnectionRetry {
            let rows = try await self.client.query(
                """
                SELECT campaign, state, COUNT(*) FROM \(unescaped: names.jobs)
                GROUP BY campaign, state ORDER BY campaign COLLATE "C"
                """, logger: self.logger)
            var result: [CampaignJobCounts] = []
            for try await (campaign, stateText, count) in rows.decode((String, String, Int64).self) {
                if result.last?.campaign != campaign {
                    result.append(CampaignJobCounts(campaign: campaign, counts: JobCounts()))
                }
                result[result.count - 1].counts.byState[try Self.state(stateText)] = Int(count)
            }
            return result
        }
    }

    // MARK: Results cache

    public func cachedResult(contentSHA256: String, profile: String) async throws -> Data? {
        let names = self.names
        let key = contentSHA256.lowercased()
        return try await withConnectionRetry {
            let rows = try await self.client.query(
                """
                SELECT result FROM \(unescaped: names.resultsCache) WHERE content_sha256 = \(key) AND profile = \(profile)
                """, logger: self.logger)
            for try await (result) in rows.decode(Data.self) { return result }
            return nil
        }
    }

    public func storeCachedResult(_ result: Data, contentSHA256: String, profile: String) async throws {
        let names = self.names
        let key = contentSHA256.lowercased()
        let bytes = ByteBuffer(bytes: result)
        let now = options.clock.now()
        try await withConnectionRetry {
            _ = try await self.client.query(
                """
                INSERT INTO \(unescaped: names.resultsCache) (content_sha256, profile, result, created_at)
                VALUES (\(key), \(profile), \(bytes), \(now))
                ON CONFLICT (content_sha256, profile) DO UPDATE SET result = EXCLUDED.result, created_at = EXCLUDED.created_at
                """, logger: self.logger)
        }
    }

    // MARK: Waiting and closing

    public func waitForWork(timeout: Duration) async -> Bool {
        await startListening()
        return await wake.wait(timeout: timeout)
    }

    public func close() async {
        let (run, listener) = tasks.withLockedValue { tasks -> (Task<Void, Never>?, Task<Void, Never>?) in
            tasks.closed = true
            defer {
                tasks.run = nil
                tasks.listener = nil
            }
            return (tasks.run, tasks.listener)
        }
        listener?.cancel()
        await listener?.value
        run?.cancel()
        await run?.value
    }

    /// Starts the LISTEN connection once and waits (up to 5 s) until the server confirmed LISTEN.
    private func startListening() async {
        let started = tasks.withLockedValue { tasks -> Bool in
            guard !tasks.listening, !tasks.closed else { return false }
            tasks.listening = true
            tasks.listener = Task { await self.listenLoop() }
            return true
        }
        if started {
            _ = await listenerReady.wait(timeout: .seconds(5))
        }
    }

    private func listenLoop() async {
        let channel = names.channel
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        self.listenerReady.signal()
                        // Work may have arrived while not listening (first start or reconnect).
                        self.wake.signal()
                        for try await _ in notifications {
                            self.wake.signal()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("LISTEN connection lost; retrying", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
