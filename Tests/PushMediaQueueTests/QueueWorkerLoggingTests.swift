import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import PushMediaQueue

/// What a worker's log says of each job: one line per state change, after the queue stored it.
@Suite("QueueWorker log lines")
struct QueueWorkerLoggingTests {
    /// One captured log line.
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    /// Keeps every line logged through it.
    struct CapturingHandler: LogHandler {
        let lines: NIOLockedValueBox<[Line]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String,
            file: String, function: String, line: UInt
        ) {
            let all = metadata.merging(extra ?? [:]) { _, new in new }
            lines.withLockedValue { $0.append(Line(level: level, message: "\(message)", metadata: all.mapValues { "\($0)" })) }
        }
    }

    @Test(
        "a finished job is one info line with the stored state and the result's metadata; retries notice, dead warning", arguments: Backend.testable)
    func finishedLines(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            let jobs = try await queue.enqueue([
                NewJob(campaign: "log", source: "good", profile: "p"),
                NewJob(campaign: "log", source: "bad", profile: "p"),
                NewJob(campaign: "log", source: "hopeless", profile: "p", maxAttempts: 2),
            ])
            let lines = NIOLockedValueBox<[Line]>([])
            let logger = Logger(label: "test.worker") { _ in CapturingHandler(lines: lines) }
            var configuration = QueueWorkerTests.fastConfiguration(owner: "logger")
            configuration.resultMetadata = { data in ["result": "\(String(decoding: data, as: UTF8.self))"] }
            let worker = QueueWorker(queue: queue, configuration: configuration, logger: logger) { job in
                switch job.source {
                case "bad": return .failed(result: Data("broken".utf8), error: JobError(code: "decode_failed", message: "bad bytes"))
                case "hopeless": throw QueueWorkerTests.Flaky()
                default: return .succeeded(result: Data("fine".utf8), kind: "image")
                }
            }
            try await worker.runUntilDrained(campaign: "log")

            let byJob = Dictionary(grouping: lines.withLockedValue { $0 }.filter { $0.metadata["job_id"] != nil }) { $0.metadata["job_id"]! }
            let id = { (source: String) in "\(try #require(jobs.first { $0.source == source }).id)" }
            let good = try #require(byJob[try id("good")])
            #expect(good.count == 1)
            #expect(good.first?.level == .info && good.first?.message == "job finished")
            #expect(good.first?.metadata["state"] == "succeeded" && good.first?.metadata["result"] == "fine")

            let bad = try #require(byJob[try id("bad")])
            #expect(bad.map(\.message) == ["job finished"] && bad.first?.level == .info)
            #expect(bad.first?.metadata["state"] == "failed" && bad.first?.metadata["error_code"] == "decode_failed")
            #expect(bad.first?.metadata["result"] == "broken")

            let hopeless = try #require(byJob[try id("hopeless")])
            #expect(hopeless.map(\.message) == ["job retrying", "job dead"])
            #expect(hopeless.map(\.level) == [.notice, .warning])
            #expect(hopeless.allSatisfy { $0.metadata["result"] == nil && $0.metadata["error_code"] == "origin_unavailable" })
        }
    }
}
