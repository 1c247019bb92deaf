import GRDB

extension SQLiteJobQueue {
    /// The schema, as GRDB migrations (each applied once, recorded in `grdb_migrations`).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1_jobs_and_results_cache") { db in
            try db.execute(
                sql: """
                    CREATE TABLE jobs (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        campaign TEXT NOT NULL,
                        source TEXT NOT NULL,
                        profile TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        max_attempts INTEGER NOT NULL,
                        run_at INTEGER NOT NULL,
                        lease_owner TEXT,
                        lease_expires_at INTEGER,
                        last_error_code TEXT,
                        last_error_message TEXT,
                        error_history TEXT NOT NULL DEFAULT '[]',
                        result BLOB,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        finished_at INTEGER
                    );
                    CREATE UNIQUE INDEX jobs_identity ON jobs (campaign, source, profile);
                    CREATE INDEX jobs_claim ON jobs (state, run_at);
                    CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE state = 'running';
                    CREATE TABLE results_cache (
                        content_sha256 TEXT NOT NULL,
                        profile TEXT NOT NULL,
                        result BLOB NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (content_sha256, profile)
                    );
                    """)
        }
        return migrator
    }
}
