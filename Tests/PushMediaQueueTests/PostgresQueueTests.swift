import Foundation
import Logging
import Testing

@testable import PushMediaQueue

/// PostgreSQL-only behaviour.
@Suite("PostgreSQL queue", .enabled(if: TestEnvironment.postgresTestsEnabled, TestEnvironment.missingPostgresMessage))
struct PostgresQueueTests {
    @Test("the test server is configured")
    func serverConfigured() throws {
        _ = try TestEnvironment.requirePostgres()
    }

    @Test("waitForWork wakes soon after another client enqueues (LISTEN/NOTIFY)")
    func notifyWakesWaiter() async throws {
        try await withFixture(.postgres) { fixture in
            let waiter = try await fixture.open()
            let producer = try await fixture.open()
            // Starts LISTEN and consumes the wake-up the first connection gives.
            _ = await waiter.waitForWork(timeout: .milliseconds(100))
            _ = await waiter.waitForWork(timeout: .milliseconds(100))

            let started = ContinuousClock.now
            async let woken = waiter.waitForWork(timeout: .seconds(20))
            try await Task.sleep(for: .milliseconds(300))
            try await producer.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            let wasWoken = await woken
            let waited = ContinuousClock.now - started
            #expect(wasWoken, "woken by the notification, not by the timeout")
            #expect(waited < .seconds(5), "waited \(waited)")

            // Without a notification it times out.
            let quietStart = ContinuousClock.now
            #expect(await !waiter.waitForWork(timeout: .milliseconds(300)))
            #expect(ContinuousClock.now - quietStart >= .milliseconds(250))
        }
    }

    @Test("a prefix keeps two queues apart in one schema")
    func prefixesAreIndependent() async throws {
        var base = try TestEnvironment.requirePostgres()
        base.schema = "test_prefix_\(UUID().uuidString.prefix(8).lowercased())"
        base.maximumConnections = 2
        var other = base
        other.prefix = "other_"
        let first = try await PostgresJobQueue(configuration: base)
        let second = try await PostgresJobQueue(configuration: other)
        do {
            try await first.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            #expect(try await first.counts(campaign: nil).total == 1)
            #expect(try await second.counts(campaign: nil).total == 0)
        } catch {
            Issue.record(error)
        }
        _ = try? await first.client.query("DROP SCHEMA IF EXISTS \(unescaped: "\"\(base.schema ?? "")\"") CASCADE")
        await first.close()
        await second.close()
    }

    // A hang would be a bug; the time limit only stops the run then (it measures nothing).
    @Test("an unreachable server fails to open with a clear error", .timeLimit(.minutes(1)))
    func unreachableServer() async throws {
        var configuration = try TestEnvironment.requirePostgres()
        configuration.port = 1
        configuration.sslMode = .disable
        do {
            var logger = Logger(label: "test.unreachable")
            logger.logLevel = .critical
            let queue = try await PostgresJobQueue(
                configuration: configuration, logger: logger, connectionRetries: 1, openTimeout: .seconds(2))
            await queue.close()
            Issue.record("opening a queue on port 1 must fail")
        } catch let error as JobQueueError {
            guard case .openFailed = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.description.contains("could not open queue"))
        }
    }
}
