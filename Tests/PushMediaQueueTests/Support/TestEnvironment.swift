import Foundation
import PushMediaQueue
import Testing

/// Where the PostgreSQL tests find their server, and what to do when there is none.
enum TestEnvironment {
    static let postgresURLVariable = "PUSHMEDIA_TEST_POSTGRES_URL"

    /// The test server URL, if set.
    static var postgresURL: String? {
        guard let value = ProcessInfo.processInfo.environment[postgresURLVariable], !value.isEmpty else { return nil }
        return value
    }

    /// Whether we run in CI (`CI=true`), where a missing server is a failure, never a skip.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }

    /// PostgreSQL tests run when a server is configured, and in CI (where they then fail loudly).
    static var postgresTestsEnabled: Bool { postgresURL != nil || isCI }

    static let missingPostgresMessage: Comment = """
        PostgreSQL tests (this suite and the postgres cases of the contract suites) need \(postgresURLVariable) \
        (run `source scripts/lib/postgres.sh && ensure_postgres` first)
        """

    /// The PostgreSQL configuration for tests; records a failure when it is missing (in CI; outside
    /// CI the postgres cases are not generated, see ``Backend/testable``, and the PostgreSQL suite
    /// shows as skipped with ``missingPostgresMessage``).
    static func requirePostgres() throws -> PostgresQueueConfiguration {
        guard let url = postgresURL else {
            Issue.record(
                "\(isCI ? "CI=true but " : "")\(postgresURLVariable) is not set: PostgreSQL tests cannot run (source scripts/lib/postgres.sh and call ensure_postgres)"
            )
            throw MissingPostgres()
        }
        guard case .postgres(let configuration) = try QueueURL(parsing: url) else {
            Issue.record("\(postgresURLVariable) is not a postgres:// URL: \(url)")
            throw MissingPostgres()
        }
        return configuration
    }

    struct MissingPostgres: Error, CustomStringConvertible {
        var description: String { "PostgreSQL test server not configured" }
    }
}
