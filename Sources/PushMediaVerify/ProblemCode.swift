/// Stable, machine-readable reasons a phone would drop a published URL. New codes may be added;
/// existing ones keep their meaning. The one table of them is docs/storage.md ("Verifying the
/// published URLs").
/// (The JSON lines carry the raw value: ``URLReport``.)
public struct ProblemCode: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // The URL itself.
    /// The URL is not https (App Transport Security refuses plain http); it was not requested.
    public static let notHTTPS = ProblemCode("not_https")
    /// The URL cannot be parsed.
    public static let invalidURL = ProblemCode("invalid_url")
    /// The URL's path does not end in the file's extension, which the service extension names
    /// the downloaded file by.
    public static let wrongExtension = ProblemCode("wrong_extension")

    // Redirects.
    /// A redirect to plain http.
    public static let insecureRedirect = ProblemCode("insecure_redirect")
    /// A redirect back to a URL already requested.
    public static let redirectLoop = ProblemCode("redirect_loop")
    /// More redirects than the phones follow.
    public static let tooManyRedirects = ProblemCode("too_many_redirects")
    /// A redirect without a usable Location.
    public static let brokenRedirect = ProblemCode("broken_redirect")
    /// A redirect to a host the manifest does not name: verify does not follow it.
    public static let redirectOffHost = ProblemCode("redirect_off_host")

    // Connection.
    /// The certificate does not name the URL's host.
    public static let certificateWrongName = ProblemCode("certificate_wrong_name")
    /// The certificate chain is not trusted (or expired).
    public static let certificateUntrusted = ProblemCode("certificate_untrusted")
    /// Another TLS failure.
    public static let tlsFailed = ProblemCode("tls_failed")
    /// No connection (DNS, refused, reset).
    public static let connectionFailed = ProblemCode("connection_failed")
    /// The server's answer is not HTTP that a phone can read (a broken status line or header, a
    /// `Content-Length` that is not a number).
    public static let invalidResponse = ProblemCode("invalid_response")
    /// The server did not answer before the deadline.
    public static let noResponse = ProblemCode("no_response")

    // Status.
    /// 404 or 410.
    public static let notFound = ProblemCode("not_found")
    /// 401 or 403: the URL needs credentials or a token the phone does not have.
    public static let forbidden = ProblemCode("forbidden")
    /// 5xx.
    public static let serverError = ProblemCode("server_error")
    /// Any other status than 200.
    public static let unexpectedStatus = ProblemCode("unexpected_status")

    // Headers and bytes.
    /// The Content-Type is missing or names another type than the attachment's.
    public static let wrongContentType = ProblemCode("wrong_content_type")
    /// Fewer bytes than the file: a shorter object, or a body cut off.
    public static let truncated = ProblemCode("truncated")
    /// More bytes than the file, announced by Content-Length.
    public static let extraBytes = ProblemCode("extra_bytes")
    /// More bytes than the file kept coming, without a Content-Length (reading stopped one byte
    /// past the size).
    public static let bodyOverrun = ProblemCode("body_overrun")
    /// The file's size, other bytes (SHA-256).
    public static let wrongBytes = ProblemCode("wrong_bytes")
    /// A `Content-Encoding` the request did not offer (`br` to a downloader that asked for
    /// gzip): the server ignores `Accept-Encoding`, and a phone that cannot decode it gets bytes
    /// it cannot read.
    public static let unofferedEncoding = ProblemCode("unoffered_encoding")

    // The downloaders' rules.
    /// FCM's image without Content-Length.
    public static let noContentLength = ProblemCode("no_content_length")
    /// FCM's image over 1 MiB.
    public static let overFCMLimit = ProblemCode("over_fcm_limit")
    /// FCM's image arrived after FCM's cut-off (5 s).
    public static let slowForFCM = ProblemCode("slow_for_fcm")
    /// An iOS attachment arrived after the profile's delivery target.
    public static let slowForIOS = ProblemCode("slow_for_ios")
    /// A web push image or icon arrived after the browser's cut-off (Chromium's 90 s).
    public static let slowForWeb = ProblemCode("slow_for_web")
}

/// A reason a phone would drop the URL, and what to change.
public struct Problem: Sendable, Equatable {
    public var code: ProblemCode
    /// One sentence: what to change, with the facts that show it ("serve image/jpeg (the
    /// server sent text/html)", "the object is 1,204 bytes shorter than the file").
    public var fix: String

    public init(_ code: ProblemCode, _ fix: String) {
        self.code = code
        self.fix = fix
    }
}
