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

    /// Item error codes that a retry may fix: ``PushMediaModel/ErrorCode/transient``, the one table.
    public static var transientCodes: Set<ErrorCode> { ErrorCode.transient }
}
