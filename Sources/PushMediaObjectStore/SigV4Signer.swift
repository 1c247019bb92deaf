import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests (header-based signing), as a pure value: the same
/// request, credentials and time always give the same headers. No I/O.
///
/// The request's path and query must already be URI-encoded as they go on the wire (S3 signs the
/// path as sent, without normalising it); ``S3Path`` encodes keys that way. Every header given is
/// signed, plus `host`, `x-amz-date`, `x-amz-content-sha256` and, with a session token,
/// `x-amz-security-token`. Checked against botocore's `S3SigV4Auth` in the tests.
public struct SigV4Signer: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What is signed: method, URL (encoded path and query), headers and the payload's SHA-256.
    public struct Request: Sendable, Equatable {
        public var method: String
        public var url: URL
        public var headers: [(name: String, value: String)]
        /// Lowercase hex SHA-256 of the body (``SigV4Signer/emptyPayloadSHA256`` for none).
        public var payloadSHA256: String

        public init(method: String, url: URL, headers: [(name: String, value: String)] = [], payloadSHA256: String) {
            self.method = method
            self.url = url
            self.headers = headers
            self.payloadSHA256 = payloadSHA256
        }

        public static func == (a: Request, b: Request) -> Bool {
            a.method == b.method && a.url == b.url && a.payloadSHA256 == b.payloadSHA256
                && a.headers.map { [$0.name, $0.value] } == b.headers.map { [$0.name, $0.value] }
        }
    }

    /// SHA-256 of no bytes.
    public static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The request's headers with the signing headers and `Authorization` added.
    public func signedHeaders(for request: Request, at date: Date) -> [(name: String, value: String)] {
        let signing = signingRequest(request, at: date)
        let signature = self.signature(stringToSign: stringToSign(canonicalRequest: canonicalRequest(signing), at: date), at: date)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(at: date)), "
            + "SignedHeaders=\(signedHeaderNames(signing)), Signature=\(signature)"
        return signing.headers + [(name: "Authorization", value: authorization)]
    }

    /// The request as signed: its headers plus `X-Amz-Date`, `X-Amz-Content-SHA256` and the token.
    func signingRequest(_ request: Request, at date: Date) -> Request {
        var signing = request
        let added: Set<String> = ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization"]
        signing.headers.removeAll { added.contains($0.name.lowercased()) }
        signing.headers.append(("X-Amz-Date", Self.timestamp(date)))
        if let token = credentials.sessionToken { signing.headers.append(("X-Amz-Security-Token", token)) }
        signing.headers.append(("X-Amz-Content-SHA256", request.payloadSHA256))
        return signing
    }

    /// Task 1: method, path, query, headers, signed header names and payload hash, one a line.
    func canonicalRequest(_ request: Request) -> String {
        let headers = canonicalHeaders(request)
        return [
            request.method.uppercased(),
            Self.encodedPath(of: request.url),
            Self.canonicalQuery(of: request.url),
            headers.map { "\($0.name):\($0.value)\n" }.joined(),
            headers.map(\.name).joined(separator: ";"),
            request.payloadSHA256,
        ].joined(separator: "\n")
    }

    /// Task 2: algorithm, time, scope and the canonical request's hash.
    func stringToSign(canonicalRequest: String, at date: Date) -> String {
        ["AWS4-HMAC-SHA256", Self.timestamp(date), scope(at: date), Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
    }

    /// Task 3: the key derived from the secret, day, region and service, then the HMAC of the string.
    func signature(stringToSign: String, at date: Date) -> String {
        let day = String(Self.timestamp(date).prefix(8))
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    func scope(at date: Date) -> String {
        "\(Self.timestamp(date).prefix(8))/\(region)/\(service)/aws4_request"
    }

    /// Lowercase names, sorted, values trimmed with inner runs of spaces made one; repeated names
    /// joined by commas; `host` added from the URL when absent. Hop-by-hop headers and
    /// `user-agent` are not signed (a proxy may change them).
    func canonicalHeaders(_ request: Request) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            guard !Self.unsignedHeaders.contains(name) else { continue }
            merged[name, default: []].append(header.value.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        }
        if merged["host"] == nil { merged["host"] = [Self.host(of: request.url)] }
        return merged.keys.sorted().map { ($0, merged[$0]!.joined(separator: ",")) }
    }

    func signedHeaderNames(_ request: Request) -> String {
        canonicalHeaders(request).map(\.name).joined(separator: ";")
    }

    static let unsignedHeaders: Set<String> = [
        "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id", "authorization",
    ]

    /// `host` or `host:port` when the port is not the scheme's default.
    static func host(of url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let standard = url.scheme == "https" ? 443 : 80
        return port == standard ? host : "\(host):\(port)"
    }

    static func encodedPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The already-encoded `name=value` pairs sorted by name, then value (`name=` for a bare name).
    static func canonicalQuery(of url: URL) -> String {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery, !query.isEmpty else {
            return ""
        }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        return pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The keys requests are signed with: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, for
/// temporary credentials, `AWS_SESSION_TOKEN`.
public struct S3Credentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
