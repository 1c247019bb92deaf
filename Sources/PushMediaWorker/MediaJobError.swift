import PushMediaModel
import PushMediaQueue

/// A failure the queue should retry (a transient one) or record at once, with the item's code.
public struct MediaJobError: QueueJobError, CustomStringConvertible {
    public var code: String
    public var message: String
    public var isPermanent: Bool

    public init(code: ErrorCode, message: String, isPermanent: Bool) {
        self.code = code.rawValue
        self.message = message
        self.isPermanent = isPermanent
    }

    public var description: String { "\(code): \(message)" }

    /// Item error codes that a retry may fix: the file was briefly unreadable, the disk was full,
    /// the machine was overloaded, a bug was hit, the bucket did not take the outputs, the item's
    /// process died (each such attempt counts, so a file that kills it every time ends after
    /// its attempts). Everything else is a property of the input.
    public static let transientCodes: Set<ErrorCode> = [
        .unreadableInput, .encodeFailed, .timeout, .internalError, .downloadFailed, .storeFailed, .workerCrashed,
    ]
}
