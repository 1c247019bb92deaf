import Foundation

/// A failed S3 request, classified: what went wrong in words a user can act on, and whether
/// trying again may help (``isTransient``).
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The bucket does not exist.
        case noSuchBucket
        /// The access key is unknown or the secret does not match.
        case invalidCredentials
        /// The credentials are valid but not allowed this request.
        case accessDenied
        /// The machine's clock is too far from the server's for signatures to be accepted.
        case clockSkew
        /// No answer: connection refused or reset, name not resolved, timed out.
        case unreachable
        /// The server answered 5xx, 429 or a "slow down"/"request timeout" error.
        case serverBusy
        /// The bytes stored differ from the bytes sent (checksum mismatch).
        case badDigest
        /// Any other refusal.
        case rejected
    }

    public var kind: Kind
    /// The HTTP status, when there was an answer.
    public var status: Int?
    /// S3's error code (`NoSuchBucket`, `SignatureDoesNotMatch`…), when the answer had one.
    public var code: String?
    public var message: String

    public init(kind: Kind, status: Int? = nil, code: String? = nil, message: String) {
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message
    }

    /// Whether the same request may succeed later.
    public var isTransient: Bool {
        kind == .unreachable || kind == .serverBusy || kind == .badDigest
    }

    public var description: String { message }

    /// Classifies an answer that is not a success. `body` is S3's XML error document, if any
    /// (HEAD answers have none); `what` names the request (`PUT s3://b/k`) for the message.
    public static func from(status: Int, body: Data, what: String) -> S3Error {
        let xml = S3XML(body)
        let code = xml.value("Error/Code")
        let name = code ?? ""
        let detail = xml.value("Error/Message").map { ": \($0)" } ?? ""
        switch (status, name) {
        case (_, "NoSuchBucket"):
            return S3Error(kind: .noSuchBucket, status: status, code: code, message: "\(what): the bucket does not exist\(detail)")
        case (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"), (_, "InvalidToken"), (_, "ExpiredToken"), (_, "TokenRefreshRequired"):
            return S3Error(
                kind: .invalidCredentials, status: status, code: code,
                message:
                    "\(what): the credentials were refused (\(name)): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN\(detail)")
        case (_, "RequestTimeTooSkewed"):
            return S3Error(
                kind: .clockSkew, status: status, code: code,
                message: "\(what): this machine's clock is too far from the server's (RequestTimeTooSkewed): synchronise it (NTP)\(detail)")
        case (_, "SlowDown"), (_, "RequestTimeout"), (_, "InternalError"), (_, "ServiceUnavailable"), (429, _), (500...599, _):
            return S3Error(kind: .serverBusy, status: status, code: code, message: "\(what): HTTP \(status) \(name)\(detail)")
        case (_, "BadDigest"), (_, "XAmzContentSHA256Mismatch"), (_, "IncompleteBody"):
            return S3Error(
                kind: .badDigest, status: status, code: code, message: "\(what): the server received other bytes than were sent (\(name))\(detail)")
        case (403, _):
            return S3Error(
                kind: .accessDenied, status: status, code: code,
                message: "\(what): access denied (HTTP 403 \(name)): the credentials may be wrong or lack permission for this bucket\(detail)")
        default:
            return S3Error(kind: .rejected, status: status, code: code, message: "\(what): HTTP \(status) \(name)\(detail)")
        }
    }

    /// No answer at all.
    static func unreachable(_ what: String, endpoint: String, _ error: any Error) -> S3Error {
        S3Error(kind: .unreachable, message: "\(what): no answer from \(endpoint): \(error)")
    }
}
