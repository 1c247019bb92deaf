import Metrics

/// The worker's swift-metrics instruments.
public struct QueueWorkerMetrics: Sendable {
    /// The timer label of claims: how long a claim took, jobs found or not.
    public static let claimDurationLabel = "pushmedia_queue_claim_duration"
    /// Histogram buckets for claims: a claim takes well under a millisecond at any backlog when
    /// the indexes are used (docs/benchmarks/catalogue.md), seconds when they are not; the
    /// default buckets start at 5 ms and would hide the difference.
    public static let claimDurationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
    ]

    /// The counter label (dimension `state`: succeeded, failed, retrying, dead, released, lease_lost, report_failed).
    static let outcomesLabel = "pushmedia_queue_jobs_total"
    /// The timer label (dimension `kind`).
    static let durationLabel = "pushmedia_queue_job_processing_duration"
    /// The gauge of busy slots.
    static let busyLabel = "pushmedia_queue_worker_busy_slots"
    /// The counter of storage failures (``StorageFailure``): full, read-only or failing storage.
    static let storageFailuresLabel = "pushmedia_queue_storage_failures_total"

    func recordOutcome(_ state: String) {
        Metrics.Counter(label: Self.outcomesLabel, dimensions: [("state", state)]).increment()
    }

    func recordDuration(_ duration: Duration, kind: String) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        Metrics.Timer(label: Self.durationLabel, dimensions: [("kind", kind)]).recordNanoseconds(nanoseconds)
    }

    func recordClaim(_ duration: Duration) {
        Metrics.Timer(label: Self.claimDurationLabel).record(duration: duration)
    }

    func recordBusySlots(_ count: Int) {
        Metrics.Gauge(label: Self.busyLabel).record(count)
    }

    func recordStorageFailure() {
        Metrics.Counter(label: Self.storageFailuresLabel).increment()
    }
}
