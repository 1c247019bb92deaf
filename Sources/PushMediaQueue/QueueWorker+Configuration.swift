import Foundation
import Logging

extension QueueWorker {
    /// How a ``QueueWorker`` claims and runs jobs.
    public struct Configuration: Sendable {
        /// The lease owner name (unique per worker; defaults to host:pid:random).
        public var owner: String
        /// Concurrent slots.
        public var concurrency: Int
        /// Only claim jobs of this campaign (nil: any campaign).
        public var campaign: String?
        /// The lease taken on each claim.
        public var leaseDuration: Duration
        /// How often a running job's lease is extended (default lease / 3).
        public var heartbeatInterval: Duration
        /// How often expired leases are rescued (default: every lease duration, at most every 30 s).
        public var rescueInterval: Duration
        /// How long to wait for work before claiming again when the queue had none.
        public var pollInterval: Duration
        /// How long running jobs may finish after a graceful shutdown began.
        public var shutdownGracePeriod: Duration
        /// The backoff of transient failures.
        public var retryPolicy: RetryPolicy
        /// What a ``StorageFailure`` does to the worker (default ``StorageFailureAction/pause``).
        public var onStorageFailure: StorageFailureAction
        /// How long the worker waits before claiming again after a failed claim or a
        /// ``StorageFailure``, by the number of failures in a row (default 1 s, doubling, at most 60 s).
        public var failureBackoff: RetryPolicy
        /// The `kind` metric dimension of a job whose outcome names none.
        public var metricsKind: @Sendable (Job) -> String
        /// What the log line of a finished job says about its result (e.g. sizes), from the
        /// result bytes the handler returned.
        public var resultMetadata: @Sendable (Data) -> Logger.Metadata

        /// Creates a configuration.
        public init(
            owner: String = Configuration.defaultOwner(), concurrency: Int = 2, campaign: String? = nil,
            leaseDuration: Duration = .seconds(60), heartbeatInterval: Duration? = nil,
            rescueInterval: Duration? = nil, pollInterval: Duration = .seconds(1),
            shutdownGracePeriod: Duration = .seconds(30), retryPolicy: RetryPolicy = .default,
            onStorageFailure: StorageFailureAction = .pause,
            failureBackoff: RetryPolicy = RetryPolicy(base: .seconds(1), factor: 2, cap: .seconds(60)),
            metricsKind: @escaping @Sendable (Job) -> String = { _ in "job" },
            resultMetadata: @escaping @Sendable (Data) -> Logger.Metadata = { _ in [:] }
        ) {
            self.owner = owner
            self.concurrency = max(1, concurrency)
            self.campaign = campaign
            self.leaseDuration = leaseDuration
            self.heartbeatInterval = heartbeatInterval ?? leaseDuration / 3
            self.rescueInterval = rescueInterval ?? min(leaseDuration, .seconds(30))
            self.pollInterval = pollInterval
            self.shutdownGracePeriod = shutdownGracePeriod
            self.retryPolicy = retryPolicy
            self.onStorageFailure = onStorageFailure
            self.failureBackoff = failureBackoff
            self.metricsKind = metricsKind
            self.resultMetadata = resultMetadata
        }

        /// `host:pid:random`, unique per worker instance.
        public static func defaultOwner() -> String {
            let random = UUID().uuidString.prefix(8).lowercased()
            return "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(random)"
        }
    }
}

extension QueueWorker {
    /// What a worker does when the storage it writes to fails (``StorageFailure``). Either way
    /// the job that met it goes back to the queue uncounted.
    public enum StorageFailureAction: Sendable, Equatable {
        /// Stop claiming, let the jobs in progress finish, and end the run with the failure (a
        /// batch, which cannot finish without its storage: `pushmedia process`).
        case stop
        /// Stop claiming for ``Configuration/failureBackoff`` (growing while it lasts), report
        /// unhealthy (``QueueWorker/health``), then try again (a long-running worker, whose
        /// storage may be freed: `pushmedia worker`).
        case pause
    }

    /// Whether the worker can claim and record jobs: what `/healthz` reports.
    public enum Health: Sendable, Equatable {
        case ok
        /// Claims or the storage have failed `failures` times in a row since `since`; the
        /// worker is backing off. `reason` is the last failure.
        case failing(reason: String, failures: Int, since: Date)
    }
}
