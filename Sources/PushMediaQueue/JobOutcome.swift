import Foundation

/// What a ``QueueWorker`` handler returns for a job. A handler that throws reports a transient
/// error (retried with backoff) unless the error is a ``QueueJobError`` whose `isPermanent` is true.
public enum JobOutcome: Sendable, Hashable {
    /// The job succeeded; `result` is the manifest item. `kind` (e.g. `image`, `video`) labels the
    /// processing-time metric; nil uses the worker's ``QueueWorker/Configuration/metricsKind``.
    case succeeded(result: Data, kind: String? = nil)
    /// The job failed permanently (no retry); `result` is the failed manifest item.
    case failed(result: Data, error: JobError, kind: String? = nil)
}
