import Foundation

/// One entry of a job's error history (stored as a JSON array): a failure, a rescue of an expired
/// lease, a re-queue of a dead job.
public struct JobNote: Sendable, Hashable, Codable {
    /// What kind of event the note records.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A transient failure (the job is retried or dead).
        case transientError = "transient_error"
        /// A permanent failure (the job failed).
        case permanentError = "permanent_error"
        /// The lease expired and the job was rescued.
        case rescue
        /// A dead job was re-queued by hand.
        case requeue
    }

    /// When it happened.
    public var at: Date
    /// What happened.
    public var kind: Kind
    /// The attempt the note is about (1-based; 0 when not about an attempt).
    public var attempt: Int
    /// The error code, when the note is about an error.
    public var code: String?
    /// A human-readable message.
    public var message: String

    /// Creates a note.
    public init(at: Date, kind: Kind, attempt: Int, code: String? = nil, message: String) {
        self.at = at
        self.kind = kind
        self.attempt = attempt
        self.code = code
        self.message = message
    }
}
