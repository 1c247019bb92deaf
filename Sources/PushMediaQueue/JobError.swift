/// An error recorded on a job: a stable machine-readable code and a human message.
public struct JobError: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable code, e.g. `decode_failed` or `lease_expired`.
    public var code: String
    /// A human-readable message.
    public var message: String

    /// Creates an error with a code and a message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
