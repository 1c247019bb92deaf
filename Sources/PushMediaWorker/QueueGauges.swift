import Logging
import Metrics
import PushMediaQueue
import ServiceLifecycle

/// Publishes the queue's jobs by state as gauges (`pushmedia_jobs{state=…}`) every `interval` (5 s),
/// until graceful shutdown.
public struct QueueGauges: Service {
    public var queue: any JobQueue
    public var interval: Duration
    var logger: Logger

    public static let label = "pushmedia_jobs"

    public init(queue: any JobQueue, interval: Duration = .seconds(5), logger: Logger) {
        self.queue = queue
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let counts = try await queue.counts(campaign: nil)
                for state in JobState.allCases {
                    Gauge(label: Self.label, dimensions: [("state", state.rawValue)]).record(counts[state])
                }
            } catch {
                logger.warning("cannot read job counts for metrics", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
