/// Why a source download failed. Every error thrown by ``SourceFetcher`` is one of these.
///
/// ``code`` is one of exactly three strings (`download_failed`, `source_forbidden`,
/// `input_too_large`); ``message`` is for people and names the URL without its query,
/// fragment or userinfo; ``isPermanent`` tells a queue whether retrying can help.
public struct SourceFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine-readable failure kind.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// DNS, connection, TLS, HTTP status, timeout or redirect failures.
        case downloadFailed = "download_failed"
        /// The URL or one of its redirects points at a refused address, scheme or userinfo.
        case sourceForbidden = "source_forbidden"
        /// The body is larger than ``SourceFetcherConfiguration/maxBytes``.
        case inputTooLarge = "input_too_large"
    }

    /// The failure kind.
    public let kind: Kind
    /// A human-readable explanation, e.g. `https://cdn.example.com/a.jpg: HTTP 404`.
    public let message: String
    /// `true` when retrying the same URL cannot succeed (404, forbidden, too large);
    /// `false` for transient failures (timeouts, 5xx, 429, connection errors).
    public let isPermanent: Bool

    /// The error code: `download_failed`, `source_forbidden` or `input_too_large`.
    public var code: String { kind.rawValue }

    /// Creates an error.
    public init(kind: Kind, message: String, isPermanent: Bool) {
        self.kind = kind
        self.message = message
        self.isPermanent = isPermanent
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// A `download_failed` error.
    public static func downloadFailed(_ message: String, permanent: Bool) -> SourceFetchError {
        SourceFetchError(kind: .downloadFailed, message: message, isPermanent: permanent)
    }

    /// A permanent `source_forbidden` error.
    public static func forbidden(_ message: String) -> SourceFetchError {
        SourceFetchError(kind: .sourceForbidden, message: message, isPermanent: true)
    }

    /// A permanent `input_too_large` error.
    public static func tooLarge(_ message: String) -> SourceFetchError {
        SourceFetchError(kind: .inputTooLarge, message: message, isPermanent: true)
    }
}
