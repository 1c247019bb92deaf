import Logging
import PostgresNIO

extension PostgresJobQueue {
    /// One versioned schema change.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: @Sendable (PostgresQueueNames) -> [String]
    }

    /// Every migration, in version order. Append new ones; never edit applied ones.
    static let migrations: [Migration] = [
        Migration(version: 1, name: "jobs and results cache") { names in
            [
                """
                CREATE TABLE \(names.jobs) (
                    id BIGSERIAL PRIMARY KEY,
                    campaign TEXT NOT NULL,
                    source TEXT NOT NULL,
                    profile TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    max_attempts INTEGER NOT NULL,
                    run_at TIMESTAMPTZ NOT NULL,
                    lease_owner TEXT,
                    lease_expires_at TIMESTAMPTZ,
                    last_error_code TEXT,
                    last_error_message TEXT,
                    error_history JSONB NOT NULL DEFAULT '[]'::jsonb,
                    result BYTEA,
                    created_at TIMESTAMPTZ NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL,
                    finished_at TIMESTAMPTZ
                )
                """,
                "CREATE UNIQUE INDEX \(names.index("jobs_identity")) ON \(names.jobs) (campaign, source, profile)",
                "CREATE INDEX \(names.index("jobs_claim")) ON \(names.jobs) (state, run_at)",
                "CREATE INDEX \(names.index("jobs_lease")) ON \(names.jobs) (lease_expires_at) WHERE state = 'running'",
                """
                CREATE TABLE \(names.resultsCache) (
                    content_sha256 TEXT NOT NULL,
                    profile TEXT NOT NULL,
                    result BYTEA NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL,
                    PRIMARY KEY (content_sha256, profile)
                )
                """,
            ]
        },
        // Catalogue-sized campaigns (10^5–10^6 jobs). A campaign read a page at a time in byte
        // order (manifest, resumes): each page one range scan of an index instead of a sort of
        // the whole campaign. Claims: due jobs oldest first from an index of the claimable jobs
        // only, so a claim reads its few rows instead of sorting the backlog (at 10^6 queued jobs
        // a claim took 2.3 s without them, 0.1 ms with them: docs/benchmarks/catalogue.md).
        Migration(version: 2, name: "indexes for large campaigns") { names in
            let claimable = JobStateMachine.claimableStates.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            return [
                """
                CREATE INDEX \(names.index("jobs_campaign_order")) ON \(names.jobs)
                    (campaign, source COLLATE "C", profile COLLATE "C")
                """,
                """
                CREATE INDEX \(names.index("jobs_campaign_due")) ON \(names.jobs) (campaign, run_at, id)
                    WHERE state IN (\(claimable))
                """,
                "CREATE INDEX \(names.index("jobs_due")) ON \(names.jobs) (run_at, id) WHERE state IN (\(claimable))",
            ]
        },
    ]

    /// Applies pending migrations, each in its own transaction holding an advisory lock on this
    /// schema + prefix, so two workers starting at once apply each migration exactly once.
    func migrate() async throws {
        let names = self.names
        let logger = self.logger
        for migration in Self.migrations {
            try await withConnectionRetry {
                try await self.client.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(names.migrationLockKey)))", logger: logger)
                    if let schema = names.quotedSchema {
                        try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
                    }
                    try await connection.query(
                        """
                        CREATE TABLE IF NOT EXISTS \(unescaped: names.migrations) (
                            version INTEGER PRIMARY KEY,
                            name TEXT NOT NULL,
                            applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                        """, logger: logger)
                    let rows = try await connection.query(
                        "SELECT version FROM \(unescaped: names.migrations) WHERE version = \(migration.version)",
                        logger: logger)
                    var applied = false
                    for try await _ in rows { applied = true }
                    guard !applied else { return }
                    for statement in migration.statements(names) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        """
                        INSERT INTO \(unescaped: names.migrations) (version, name) VALUES (\(migration.version), \(migration.name))
                        """, logger: logger)
                    logger.info("applied queue migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                }
            }
        }
    }

    /// The migration versions recorded as applied (for status and tests).
    public func appliedMigrationVersions() async throws -> [Int] {
        let names = self.names
        return try await withConnectionRetry {
            let rows = try await self.client.query(
                "SELECT version FROM \(unescaped: names.migrations) ORDER BY version", logger: self.logger)
            var versions: [Int] = []
            for try await version in rows.decode(Int.self) { versions.append(version) }
            return versions
        }
    }
}
