/// What was seen of one published URL when it was fetched as a phone fetches it: the facts the
/// pure ``Evaluator`` judges, with no judgement of its own.
public struct Observation: Sendable, Equatable {
    /// Why there was no final response to read.
    public enum Failure: Sendable, Equatable {
        /// The URL is not `https`: the phones refuse it, so it was not requested.
        case notHTTPS
        /// The URL cannot be parsed.
        case invalidURL
        /// A redirect that was not followed.
        case redirect(RedirectChain.Stop)
        /// The server's certificate does not name the URL's host.
        case certificateWrongName(String)
        /// The server's certificate chain is not trusted (unknown or private CA without
        /// `--ca-file`, expired, self-signed).
        case certificateUntrusted(String)
        /// Another TLS failure (no common protocol or cipher, a broken handshake).
        case tls(String)
        /// No connection: the name does not resolve, the port refuses, the connection was reset
        /// before an answer.
        case connection(String)
        /// The server answered with bytes that are not an HTTP response (a broken status line or
        /// header, a `Content-Length` that is not a number).
        case invalidResponse(String)
        /// Nothing came back (no response head) before the deadline.
        case noResponse
    }

    /// How reading the body ended.
    public enum BodyEnd: Sendable, Equatable {
        /// The server ended the body.
        case complete
        /// More bytes than the file's arrived: reading stopped one byte past its size.
        case pastExpected
        /// The connection ended before the body did.
        case closedEarly(String)
        /// The deadline passed before the body ended.
        case deadline
        /// The body was not read (no final 200).
        case notRead
    }

    /// The URLs requested in order (the manifest's first; more after redirects).
    public var requested: [String]
    public var failure: Failure?
    /// The final response's status.
    public var status: Int?
    /// The final response's `Content-Type`, `Content-Length`, `Content-Encoding` and `Cache-Control`.
    public var contentType: String?
    public var contentLength: Int?
    public var contentEncoding: String?
    public var cacheControl: String?
    /// Body bytes read (at most the file's size + 1), after any `Content-Encoding` was decoded.
    public var bytes: Int
    /// SHA-256 of the body (lowercase hex), when it was read to its end.
    public var sha256: String?
    public var bodyEnd: BodyEnd
    /// Seconds from the first request to the final response's head.
    public var firstByteSeconds: Double?
    /// Seconds from the first request to the end: the body's last byte, or where reading stopped.
    public var seconds: Double
    /// The deadline the fetch had, in seconds.
    public var deadline: Double

    public init(
        requested: [String], failure: Failure? = nil, status: Int? = nil, contentType: String? = nil, contentLength: Int? = nil,
        contentEncoding: String? = nil, cacheControl: String? = nil, bytes: Int = 0, sha256: String? = nil,
        bodyEnd: BodyEnd = .notRead, firstByteSeconds: Double? = nil, seconds: Double = 0, deadline: Double
    ) {
        self.requested = requested
        self.failure = failure
        self.status = status
        self.contentType = contentType
        self.contentLength = contentLength
        self.contentEncoding = contentEncoding
        self.cacheControl = cacheControl
        self.bytes = bytes
        self.sha256 = sha256
        self.bodyEnd = bodyEnd
        self.firstByteSeconds = firstByteSeconds
        self.seconds = seconds
        self.deadline = deadline
    }

    /// Redirects followed to the final response.
    public var redirects: Int { max(0, requested.count - 1) }
}
