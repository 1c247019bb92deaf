import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing

@testable import PushMediaQueue

/// QueueWorker against both real backends (real clock, short timings).
@Suite("QueueWorker")
struct QueueWorkerTests {
    struct Flaky: QueueJobError, CustomStringConvertible {
        var code = "origin_unavailable"
        var isPermanent = false
        var message: String { "origin unavailable" }
        var description: String { "\(code): \(message)" }
    }

    static func quietLogger() -> Logger {
        var logger = Logger(label: "test.worker")
        logger.logLevel = .critical
        return logger
    }

    static func fastConfiguration(owner: String, concurrency: Int = 4, grace: Duration = .seconds(30)) -> QueueWorker.Configuration {
        QueueWorker.Configuration(
            owner: owner, concurrency: concurrency, leaseDuration: .seconds(30), rescueInterval: .seconds(1),
            pollInterval: .milliseconds(50), shutdownGracePeriod: grace,
            retryPolicy: RetryPolicy(base: .milliseconds(20), factor: 2, cap: .milliseconds(100), jitter: 0))
    }

    @Test("runUntilDrained processes every outcome: success, permanent, transient then success, dead", arguments: Backend.testable)
    func drain(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            _ = try await queue.enqueue((0..<20).map { NewJob(campaign: "batch", source: "ok\($0)", profile: "p") })
            _ = try await queue.enqueue([
                NewJob(campaign: "batch", source: "broken", profile: "p"),
                NewJob(campaign: "batch", source: "flaky", profile: "p"),
                NewJob(campaign: "batch", source: "hopeless", profile: "p", maxAttempts: 2),
                NewJob(campaign: "batch", source: "permanent-throw", profile: "p"),
                NewJob(campaign: "other", source: "untouched", profile: "p"),
            ])
            let worker = QueueWorker(
                queue: queue, configuration: Self.fastConfiguration(owner: "drainer"), logger: Self.quietLogger()
            ) { job in
                switch job.source {
                case "broken":
                    return .failed(result: Data(json: #"{"failed":true}"#), error: JobError(code: "decode_failed", message: "bad bytes"))
                case "flaky" where job.attempts < 3:
                    throw Flaky()
                case "hopeless":
                    throw Flaky()
                case "permanent-throw":
                    throw Flaky(code: "unsupported_format", isPermanent: true)
                default:
                    return .succeeded(result: Data(json: #"{"source":"\#(job.source)"}"#), kind: "image")
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await worker.runUntilDrained(campaign: "batch") }
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    throw CancellationError()
                }
                try await group.next()
                group.cancelAll()
            }
            let counts = try await queue.counts(campaign: "batch")
            #expect(counts[.succeeded] == 21, "20 ok + flaky after retries")
            #expect(counts[.failed] == 2)
            #expect(counts[.dead] == 1)
            #expect(counts.isDrained)
            let jobs = try await queue.jobs(campaign: "batch")
            let flaky = try #require(jobs.first { $0.source == "flaky" })
            #expect(flaky.attempts == 3 && flaky.errorHistory.count == 2)
            let hopeless = try #require(jobs.first { $0.source == "hopeless" })
            #expect(hopeless.state == .dead && hopeless.lastError?.code == "origin_unavailable")
            #expect(hopeless.lastError?.message == "origin unavailable", "the message is stored without the code")
            #expect(jobs.first { $0.source == "permanent-throw" }?.lastError?.code == "unsupported_format")
            #expect(jobs.first { $0.source == "ok3" }?.result == Data(json: #"{"source":"ok3"}"#))
            #expect(try await queue.counts(campaign: "other")[.queued] == 1, "another campaign is not claimed")
        }
    }

    @Test("graceful shutdown: a job finishing within grace completes, one past it is released", arguments: Backend.testable)
    func gracefulShutdown(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            let quick = try await queue.enqueue(NewJob(campaign: "c", source: "quick", profile: "p"))
            let slow = try await queue.enqueue(NewJob(campaign: "c", source: "slow", profile: "p"))
            let started = NIOLockedValueBox(0)
            let worker = QueueWorker(
                queue: queue, configuration: Self.fastConfiguration(owner: "stopping", concurrency: 2, grace: .seconds(1)),
                logger: Self.quietLogger()
            ) { job in
                started.withLockedValue { $0 += 1 }
                try await Task.sleep(for: job.source == "quick" ? .milliseconds(400) : .seconds(30))
                return .succeeded(result: Data(json: #"{"done":"\#(job.source)"}"#))
            }
            let group = ServiceGroup(configuration: .init(services: [worker], logger: Self.quietLogger()))
            let run = Task { try await group.run() }
            #expect(try await eventually { started.withLockedValue { $0 } == 2 }, "both jobs started")
            let shutdownAt = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await run.value
            let shutdownTook = ContinuousClock.now - shutdownAt
            #expect(shutdownTook < .seconds(10), "shutdown took \(shutdownTook)")
            #expect(shutdownTook >= .milliseconds(900), "the slow job got its grace period")
            #expect(worker.phase == .stopped)

            let quickStored = try #require(try await queue.job(id: quick.id))
            #expect(quickStored.state == .succeeded)
            #expect(quickStored.result == Data(json: #"{"done":"quick"}"#))
            let slowStored = try #require(try await queue.job(id: slow.id))
            #expect(slowStored.state == .queued)
            #expect(slowStored.attempts == 0, "a released job's attempt does not count")
            #expect(slowStored.leaseOwner == nil)
            let reclaimed = try await queue.claim(owner: "next-worker", leaseDuration: .seconds(30))
            #expect(reclaimed.map(\.id) == [slow.id])
        }
    }

    @Test("a worker heartbeats a job that runs longer than its lease", arguments: Backend.testable)
    func heartbeatKeepsLease(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            // The queue's clock is moved by the test, never by the machine's speed: each step
            // moves it 0.6 s (less than the 1 s lease) and waits for a heartbeat to renew the
            // lease from there; after 4 steps the clock is far past the first lease's end, while
            // the worker's rescuer checks every 50 ms.
            let queue = try await fixture.open(manualClock: true)
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "long", profile: "p"))
            var configuration = Self.fastConfiguration(owner: "beating", concurrency: 1)
            configuration.leaseDuration = .seconds(1)
            configuration.heartbeatInterval = .milliseconds(50)
            configuration.rescueInterval = .milliseconds(50)
            let finish = NIOLockedValueBox(false)
            let worker = QueueWorker(queue: queue, configuration: configuration, logger: Self.quietLogger()) { _ in
                while !finish.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
                return .succeeded(result: Data(json: "{}"))
            }
            let run = Task { try await worker.runUntilDrained(campaign: "c") }
            let firstLease = fixture.clock.now().addingTimeInterval(1)
            #expect(try await eventually { try await queue.job(id: job.id)?.state == .running })
            for _ in 0..<4 {
                fixture.clock.advance(by: .milliseconds(600))
                let renewedBy = fixture.clock.now().addingTimeInterval(0.9)
                #expect(try await eventually { (try await queue.job(id: job.id)?.leaseExpiresAt).map { $0 >= renewedBy } ?? false })
            }
            #expect(fixture.clock.now() > firstLease.addingTimeInterval(1))
            finish.withLockedValue { $0 = true }
            try await run.value
            let stored = try #require(try await queue.job(id: job.id))
            #expect(stored.state == .succeeded)
            #expect(stored.attempts == 1, "never rescued while heartbeating")
            #expect(stored.errorHistory.isEmpty)
        }
    }

    @Test("a stored result is not kept in memory: the bytes of every finished job are freed", arguments: Backend.testable)
    func resultsAreFreed(_ backend: Backend) async throws {
        // A worker runs for days: a result (a manifest item, ~1.5 KB) kept per job is a leak.
        // Each result's bytes count themselves when freed.
        let freed = NIOLockedValueBox(0)
        @Sendable func result(_ text: String) -> Data {
            let bytes = Array(text.utf8)
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            pointer.copyMemory(from: bytes, byteCount: bytes.count)
            return Data(
                bytesNoCopy: pointer, count: bytes.count,
                deallocator: .custom { pointer, _ in
                    pointer.deallocate()
                    freed.withLockedValue { $0 += 1 }
                })
        }
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            _ = try await queue.enqueue((0..<30).map { NewJob(campaign: "c", source: "s\($0)", profile: "p") })
            let worker = QueueWorker(queue: queue, configuration: Self.fastConfiguration(owner: "freeing"), logger: Self.quietLogger()) { job in
                let item = result(#"{"source":"\#(job.source)","padding":"\#(String(repeating: "x", count: 200))"}"#)
                return job.source.hasSuffix("7")
                    ? .failed(result: item, error: JobError(code: "decode_failed", message: "bad")) : .succeeded(result: item)
            }
            try await worker.runUntilDrained(campaign: "c")
            let stored = try await queue.jobs(campaign: "c")
            #expect(stored.count == 30 && stored.allSatisfy { $0.result?.count ?? 0 > 200 }, "every result was stored")
        }
        // The fixture closed its clients (a database library may hold the last bound arguments).
        #expect(freed.withLockedValue { $0 } == 30, "results freed: \(freed.withLockedValue { $0 }) of 30")
    }

    @Test("expired leases are looked for once per lease, at most every 30 s, unless set")
    func rescueIntervalFollowsTheLease() {
        #expect(QueueWorker.Configuration(leaseDuration: .seconds(5)).rescueInterval == .seconds(5))
        #expect(QueueWorker.Configuration(leaseDuration: .seconds(60)).rescueInterval == .seconds(30))
        #expect(QueueWorker.Configuration(leaseDuration: .seconds(5), rescueInterval: .seconds(2)).rescueInterval == .seconds(2))
        #expect(QueueWorker.Configuration(leaseDuration: .seconds(9)).heartbeatInterval == .seconds(3))
    }
}
