import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A small S3 client over AsyncHTTPClient, signing with ``SigV4Signer``: HEAD and PUT of
/// objects, multipart uploads (``S3Client/upload(file:to:contentType:cacheControl:)``), and
/// ListObjectsV2. Transient failures (no answer, 5xx, slow down) are retried with
/// ``S3Backoff``; everything else is an ``S3Error`` at once.
///
/// Requests go through one process-wide `HTTPClient` (like AsyncHTTPClient's `shared`, it lives
/// as long as the process: nothing to shut down), each with its own deadline (30 s plus 2 s per
/// MiB sent).
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    public let backoff: S3Backoff
    /// Files up to this size go up in one PUT; larger ones as a multipart upload.
    public let multipartThreshold: Int
    /// The size of each part of a multipart upload (S3's minimum is 5 MiB).
    public let partSize: Int
    let logger: Logger
    private let signer: SigV4Signer

    public init(
        configuration: S3Configuration, backoff: S3Backoff = S3Backoff(), multipartThreshold: Int = 16 << 20,
        partSize: Int = 8 << 20, logger: Logger = Logger(label: "pushmedia.s3")
    ) {
        self.configuration = configuration
        self.backoff = backoff
        self.multipartThreshold = max(multipartThreshold, 1)
        self.partSize = max(partSize, 5 << 20)
        self.logger = logger
        signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
    }

    /// A failed connection fails its request at once (5 s to connect), so that ``S3Backoff``
    /// decides about retries, not the connection pool; redirects are not followed (a signed
    /// request cannot be replayed elsewhere).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(30))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// An answer: status, headers and (for requests that have one) the body.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// Sends a signed request, retrying transient failures; returns a 2xx answer (or, for HEAD,
    /// also a 404) and throws ``S3Error`` for anything else.
    func send(
        _ method: HTTPMethod, bucket: String, key: String = "", query: String? = nil, headers: [(name: String, value: String)] = [],
        body: Data = Data(), bodySHA256: String? = nil, what: String
    ) async throws -> Answer {
        let url = configuration.url(bucket: bucket, key: key, query: query)
        let payloadSHA256 = bodySHA256 ?? (body.isEmpty ? SigV4Signer.emptyPayloadSHA256 : SigV4Signer.hex(SHA256.hash(data: body)))
        var attempt = 1
        while true {
            do {
                let answer = try await sendOnce(method, url: url, headers: headers, body: body, payloadSHA256: payloadSHA256, what: what)
                if (200..<300).contains(answer.status) || (method == .HEAD && answer.status == 404) { return answer }
                throw S3Error.from(status: answer.status, body: answer.body, what: what)
            } catch let error as S3Error where error.isTransient {
                guard let wait = backoff.wait(afterAttempt: attempt) else {
                    throw S3Error(
                        kind: error.kind, status: error.status, code: error.code, message: "\(error.message) (gave up after \(attempt) attempts)")
                }
                logger.debug("S3 request failed, retrying", metadata: ["request": "\(what)", "attempt": "\(attempt)", "error": "\(error)"])
                try await Task.sleep(for: wait)
                attempt += 1
            }
        }
    }

    private func sendOnce(
        _ method: HTTPMethod, url: URL, headers: [(name: String, value: String)], body: Data, payloadSHA256: String, what: String
    ) async throws -> Answer {
        let unsigned = SigV4Signer.Request(
            method: method.rawValue, url: url, headers: [("Host", SigV4Signer.host(of: url))] + headers, payloadSHA256: payloadSHA256)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for header in signer.signedHeaders(for: unsigned, at: Date()) { request.headers.add(name: header.name, value: header.value) }
        if !body.isEmpty || method == .PUT || method == .POST {
            request.body = .bytes(ByteBuffer(data: body))
        }
        let timeout = TimeAmount.seconds(30 + Int64(body.count >> 20) * 2)
        do {
            let response = try await Self.http.execute(request, timeout: timeout, logger: logger)
            let data = try await response.body.collect(upTo: 64 << 20)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: data))
        } catch let error as S3Error {
            throw error
        } catch {
            throw S3Error.unreachable(what, endpoint: SigV4Signer.host(of: url), error)
        }
    }

    // MARK: Buckets and listings

    /// Checks that the bucket exists and these credentials may list it (one ListObjectsV2 with
    /// `max-keys=1`): the start-up check before any work.
    public func checkBucket(_ bucket: String) async throws {
        _ = try await send(.GET, bucket: bucket, query: "list-type=2&max-keys=1", what: "bucket s3://\(bucket)")
    }

    /// Creates a bucket (in the client's region outside us-east-1). For set-up and tests.
    public func createBucket(_ bucket: String) async throws {
        let body =
            configuration.region == "us-east-1"
            ? Data()
            : Data(
                "<CreateBucketConfiguration><LocationConstraint>\(configuration.region)</LocationConstraint></CreateBucketConfiguration>".utf8)
        _ = try await send(.PUT, bucket: bucket, body: body, what: "create bucket s3://\(bucket)")
    }

    /// An object as listed.
    public struct ListedObject: Sendable, Equatable {
        public var key: String
        public var size: Int
    }

    /// Every object whose key starts with `prefix` (all pages of ListObjectsV2).
    public func listObjects(bucket: String, prefix: String) async throws -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query = "list-type=2&prefix=\(S3Path.encodeQueryValue(prefix))"
            if let token { query = "continuation-token=\(S3Path.encodeQueryValue(token))&" + query }
            let answer = try await send(.GET, bucket: bucket, query: query, what: "list s3://\(bucket)/\(prefix)")
            let xml = S3XML(answer.body)
            let keys = xml.values("ListBucketResult/Contents/Key")
            let sizes = xml.values("ListBucketResult/Contents/Size").map { Int($0) ?? -1 }
            objects += zip(keys, sizes).map { ListedObject(key: $0, size: $1) }
            token = xml.value("ListBucketResult/IsTruncated") == "true" ? xml.value("ListBucketResult/NextContinuationToken") : nil
        } while token != nil
        return objects
    }

    // MARK: Objects

    /// What HEAD says about an object.
    public struct ObjectHead: Sendable, Equatable {
        public var size: Int
        /// The SHA-256 recorded at upload (`x-amz-meta-sha256`, lowercase hex), if any.
        public var sha256: String?
        public var contentType: String?
        public var cacheControl: String?
    }

    /// The object's size and recorded checksum, or nil when there is no such object.
    public func head(bucket: String, key: String) async throws -> ObjectHead? {
        let answer = try await send(.HEAD, bucket: bucket, key: key, what: "HEAD s3://\(bucket)/\(key)")
        guard answer.status != 404 else { return nil }
        return ObjectHead(
            size: answer.headers.first(name: "content-length").flatMap { Int($0) } ?? -1,
            sha256: answer.headers.first(name: "x-amz-meta-sha256"),
            contentType: answer.headers.first(name: "content-type"),
            cacheControl: answer.headers.first(name: "cache-control"))
    }

    /// The object's bytes (for tests and checks; whole in memory).
    public func get(bucket: String, key: String) async throws -> Data {
        try await send(.GET, bucket: bucket, key: key, what: "GET s3://\(bucket)/\(key)").body
    }

    /// Stores `data` in one PUT with its SHA-256 (checked by the server), `Content-Type` and
    /// `Cache-Control`. S3 stores a PUT whole or not at all.
    public func put(_ data: Data, bucket: String, key: String, contentType: String, cacheControl: String) async throws {
        let digest = SHA256.hash(data: data)
        _ = try await send(
            .PUT, bucket: bucket, key: key,
            headers: [
                ("Content-Type", contentType), ("Cache-Control", cacheControl), ("Content-Length", "\(data.count)"),
                ("x-amz-checksum-sha256", Data(digest).base64EncodedString()), ("x-amz-meta-sha256", SigV4Signer.hex(digest)),
            ],
            body: data, bodySHA256: SigV4Signer.hex(digest), what: "PUT s3://\(bucket)/\(key)")
    }
}
