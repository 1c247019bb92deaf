import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import PushMediaQueueTesting
import Testing

@testable import PushMediaQueue

/// A fresh, empty queue database for one test: a temp SQLite file, or a unique PostgreSQL schema
/// (so tests run in parallel). Opens any number of clients on it and cleans up afterwards.
final class QueueFixture: Sendable {
    let backend: Backend
    let clock: ManualQueueClock
    private let sqlitePath: String?
    private let postgres: PostgresQueueConfiguration?
    private let opened = NIOLockedValueBox<[any JobQueue]>([])

    private init(backend: Backend, sqlitePath: String?, postgres: PostgresQueueConfiguration?) {
        self.backend = backend
        self.sqlitePath = sqlitePath
        self.postgres = postgres
        clock = ManualQueueClock()
    }

    static func make(_ backend: Backend) throws -> QueueFixture {
        let unique = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushmedia-queue-tests-\(unique)")
            // A sub-folder that does not exist yet: opening must create it.
            return QueueFixture(
                backend: backend, sqlitePath: folder.appendingPathComponent("nested/queue.sqlite").path, postgres: nil)
        case .postgres:
            var configuration = try TestEnvironment.requirePostgres()
            configuration.schema = "test_\(unique)"
            configuration.maximumConnections = 4
            return QueueFixture(backend: backend, sqlitePath: nil, postgres: configuration)
        }
    }

    /// The queue URL of this fixture.
    var url: QueueURL {
        if let sqlitePath { return .sqlite(path: sqlitePath) }
        return .postgres(postgres ?? PostgresQueueConfiguration(host: "", username: "", password: nil, database: ""))
    }

    /// Opens a new client on the fixture's database (another "machine" when called twice).
    func open(
        manualClock: Bool = true, defaultMaxAttempts: Int = Job.defaultMaxAttempts,
        pollInterval: Duration = .milliseconds(50), maximumConnections: Int? = nil
    ) async throws -> any JobQueue {
        let options = JobQueueOptions(
            clock: manualClock ? clock : SystemQueueClock(), defaultMaxAttempts: defaultMaxAttempts,
            pollInterval: pollInterval)
        var url = self.url
        if case .postgres(var configuration) = url, let maximumConnections {
            configuration.maximumConnections = maximumConnections
            url = .postgres(configuration)
        }
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let queue = try await JobQueueFactory.open(url, options: options, logger: logger)
        opened.withLockedValue { $0.append(queue) }
        return queue
    }

    /// Closes every client and deletes the database.
    func cleanup() async {
        let queues = opened.withLockedValue { queues in
            defer { queues.removeAll() }
            return queues
        }
        if let schema = postgres?.schema, let queue = queues.first as? PostgresJobQueue {
            _ = try? await queue.client.query("DROP SCHEMA IF EXISTS \(unescaped: "\"\(schema)\"") CASCADE")
        }
        for queue in queues { await queue.close() }
        if let sqlitePath {
            let root = URL(fileURLWithPath: sqlitePath).deletingLastPathComponent().deletingLastPathComponent()
            try? FileManager.default.removeItem(at: root)
        }
    }
}

/// Runs `body` with a fresh fixture of `backend`, cleaning up even when it throws.
func withFixture(_ backend: Backend, _ body: (QueueFixture) async throws -> Void) async throws {
    let fixture = try QueueFixture.make(backend)
    do {
        try await body(fixture)
    } catch {
        await fixture.cleanup()
        throw error
    }
    await fixture.cleanup()
}

/// Polls `condition` until true or `timeout` passes (real time).
func eventually(
    timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

extension Data {
    init(json: String) { self.init(json.utf8) }
}
