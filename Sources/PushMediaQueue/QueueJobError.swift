/// An error a ``QueueWorker`` handler may throw to say how the failure is recorded.
public protocol QueueJobError: Error {
    /// A stable error code stored as the job's last error code.
    var code: String { get }
    /// What went wrong, in words, without the code (stored as the job's last error message).
    var message: String { get }
    /// True for errors that retrying cannot fix (the job fails at once).
    var isPermanent: Bool { get }
}

extension QueueJobError {
    /// The error's description.
    public var message: String { "\(self)" }
}
