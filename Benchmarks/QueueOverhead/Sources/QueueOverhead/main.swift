// Usage: QueueOverhead QUEUE_URL N [CONCURRENCY]
// Enqueues N jobs of a fresh campaign, drains them with a QueueWorker whose handler succeeds at
// once, and prints one JSON line: {"url":…, "jobs":N, "enqueue_s":…, "drain_s":…, "ms_per_job":…}.
// The worker is configured as `pushmedia process` configures its own (lease 120 s, poll 100 ms,
// log level warning), so the number is what `process` pays per item on top of the image work.
// Each result is the size of a manifest item (1.5 KB) and counts itself when freed: once the
// queue is closed every one must be, or the run fails ("results_freed" in the line). Built with
// -O like the product, this catches what the debug test suite cannot: Swift 6.3.1's optimiser
// once kept every success's result alive (see UniformJobWrite.applied(to:)).
import Foundation
import Logging
import PushMediaQueue
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: QueueOverhead QUEUE_URL N [CONCURRENCY]\n".utf8))
    exit(2)
}
let url = arguments[1]
let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let queue = try await JobQueueFactory.open(url: url)
let campaign = "bench-\(UUID().uuidString.prefix(8))"
// A profile key the size of a real one (the canonical profile JSON), so rows are realistic.
let profile = String(repeating: "p", count: 900)
let jobs = (0..<count).map { NewJob(campaign: campaign, source: "images/img-\($0).jpg", profile: profile) }

let clock = ContinuousClock()
let enqueueStart = clock.now
_ = try await queue.enqueue(jobs)
let enqueueTime = clock.now - enqueueStart

let freedResults = Atomic<Int>(0)

/// A result of a manifest item's size whose bytes count themselves when freed.
@Sendable func result(_ job: Job) -> Data {
    let bytes = Array("{\"source\":\"\(job.source)\",\"padding\":\"\(String(repeating: "x", count: 1500))\"}".utf8)
    let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
    pointer.copyMemory(from: bytes, byteCount: bytes.count)
    return Data(bytesNoCopy: pointer, count: bytes.count, deallocator: .custom { pointer, _ in
        pointer.deallocate()
        freedResults.add(1, ordering: .relaxed)
    })
}

let worker = QueueWorker(
    queue: queue,
    configuration: QueueWorker.Configuration(
        concurrency: concurrency, campaign: campaign, leaseDuration: .seconds(120), pollInterval: .milliseconds(100)),
    logger: Logger(label: "bench.queue.worker")
) { job in .succeeded(result: result(job)) }

let drainStart = clock.now
try await worker.runUntilDrained(campaign: campaign)
let drainTime = clock.now - drainStart

let counts = try await queue.counts(campaign: campaign)
await queue.close()
guard counts.isDrained else {
    FileHandle.standardError.write(Data("error: campaign not drained: \(counts)\n".utf8))
    exit(1)
}
let freed = freedResults.load(ordering: .relaxed)
guard freed == count else {
    FileHandle.standardError.write(Data("error: \(count - freed) of \(count) job results still in memory after the queue closed\n".utf8))
    exit(1)
}
let line: [String: Any] = [
    "jobs": count, "concurrency": concurrency, "results_freed": freed,
    "enqueue_s": seconds(enqueueTime), "drain_s": seconds(drainTime),
    "ms_per_job": seconds(drainTime) * 1000 / Double(count),
    "ms_per_job_with_enqueue": (seconds(enqueueTime) + seconds(drainTime)) * 1000 / Double(count),
]
let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
