/// An error a ``QueueWorker`` handler may throw to say how the failure is recorded.
public protocol QueueJobError: Error {
    /// A stable error code stored as the job's last error code.
    var code: String { get }
    /// True for errors that retrying cannot fix (the job fails at once).
    var isPermanent: Bool { get }
}
