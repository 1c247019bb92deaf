import Foundation

/// Where and how to reach S3 (or an S3-compatible service), read from the AWS variables users
/// already have. Pure: the environment is passed in.
///
/// | variable | use |
/// |---|---|
/// | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` | required |
/// | `AWS_SESSION_TOKEN` | temporary credentials |
/// | `AWS_REGION` (else `AWS_DEFAULT_REGION`) | the signing region; default `us-east-1` |
/// | `AWS_ENDPOINT_URL_S3` (else `AWS_ENDPOINT_URL`) | an S3-compatible service (MinIO, Ceph, R2, GCS); path-style addressing |
///
/// Without an endpoint, requests go to `https://BUCKET.s3.REGION.amazonaws.com` (virtual-hosted).
public struct S3Configuration: Sendable, Equatable {
    public var credentials: S3Credentials
    public var region: String
    /// The service's base URL when it is not AWS; requests then use path-style addressing.
    public var endpoint: URL?

    public init(credentials: S3Credentials, region: String = "us-east-1", endpoint: URL? = nil) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
    }

    /// A configuration problem, in words that name the variable.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the AWS variables (an empty one counts as unset).
    public static func fromEnvironment(_ environment: [String: String]) throws -> S3Configuration {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw Invalid(description: "S3 output needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        var endpoint: URL?
        if let text = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host?.isEmpty == false, url.query == nil
            else {
                throw Invalid(
                    description: "AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL must be an http(s) URL like https://minio.internal:9000, got \"\(text)\"")
            }
            endpoint = url
        }
        return S3Configuration(
            credentials: S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN")),
            region: region, endpoint: endpoint)
    }

    /// The URL of `key` in `bucket` (the bucket itself when `key` is empty), with `query` already
    /// encoded (e.g. `uploads`, `partNumber=1&uploadId=…`).
    public func url(bucket: String, key: String = "", query: String? = nil) -> URL {
        var components = URLComponents()
        let encodedKey = S3Path.encode(key)
        if let endpoint {
            let base = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
            components.scheme = base.scheme
            components.host = base.host
            components.port = base.port
            let basePath = base.percentEncodedPath.hasSuffix("/") ? String(base.percentEncodedPath.dropLast()) : base.percentEncodedPath
            components.percentEncodedPath = basePath + "/" + S3Path.encode(bucket) + (key.isEmpty ? "" : "/" + encodedKey)
        } else {
            components.scheme = "https"
            components.host = "\(bucket).s3.\(region).amazonaws.com"
            components.percentEncodedPath = "/" + encodedKey
        }
        components.percentEncodedQuery = query
        return components.url!
    }
}

/// S3 object keys as they go in a URL path: every byte but `A–Z a–z 0–9 - _ . ~` and `/`
/// percent-encoded (RFC 3986), which is also how SigV4 wants them signed.
public enum S3Path {
    public static func encode(_ key: String, keepingSlashes: Bool = true) -> String {
        var encoded = ""
        for byte in key.utf8 {
            let c = Character(UnicodeScalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-_.~".contains(c) || (keepingSlashes && c == "/")) {
                encoded.append(c)
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// A query value (slashes encoded too).
    public static func encodeQueryValue(_ value: String) -> String {
        encode(value, keepingSlashes: false)
    }
}
