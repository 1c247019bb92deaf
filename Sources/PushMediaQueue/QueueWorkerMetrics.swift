import Metrics

/// The worker's swift-metrics instruments.
struct QueueWorkerMetrics: Sendable {
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

    func recordBusySlots(_ count: Int) {
        Metrics.Gauge(label: Self.busyLabel).record(count)
    }

    func recordStorageFailure() {
        Metrics.Counter(label: Self.storageFailuresLabel).increment()
    }
}
