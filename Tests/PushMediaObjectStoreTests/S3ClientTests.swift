import Crypto
import Foundation
import Testing

@testable import PushMediaObjectStore

/// Where the S3 tests find their server: PUSHMEDIA_TEST_S3_ENDPOINT (scripts/test starts moto's
/// server mode on 127.0.0.1). In CI a missing server is a failure, never a skip.
enum S3TestServer {
    static var endpoint: String? {
        guard let value = ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_S3_ENDPOINT"], !value.isEmpty else { return nil }
        return value
    }

    static var enabled: Bool { endpoint != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    static func client(endpoint: String? = nil, backoff: S3Backoff = S3Backoff(first: .milliseconds(20)), multipartThreshold: Int = 16 << 20)
        throws -> S3Client
    {
        let endpoint = try #require(endpoint ?? Self.endpoint, "PUSHMEDIA_TEST_S3_ENDPOINT is not set (scripts/test starts moto)")
        let configuration = try S3Configuration.fromEnvironment(
            ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_ENDPOINT_URL_S3": endpoint])
        return S3Client(configuration: configuration, backoff: backoff, multipartThreshold: multipartThreshold, partSize: 5 << 20)
    }

    /// A new bucket with a unique name.
    static func bucket(_ client: S3Client) async throws -> String {
        let name = "pm-test-\(UUID().uuidString.prefix(8).lowercased())"
        try await client.createBucket(name)
        return name
    }

    static func file(bytes: Int, seed: UInt8) throws -> URL {
        var data = Data(count: bytes)
        var state = UInt32(seed) &+ 1
        for index in 0..<bytes {
            state = state &* 1_664_525 &+ 1_013_904_223
            data[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pm-s3-\(UUID().uuidString).bin")
        try data.write(to: url)
        return url
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

@Suite("S3 client against an S3-compatible server", .enabled(if: S3TestServer.enabled, "PUSHMEDIA_TEST_S3_ENDPOINT is not set (run scripts/test)"))
struct S3ClientTests {
    @Test("a file goes up in one PUT with its type, cache control and SHA-256; the same bytes again are not sent")
    func singlePut() async throws {
        let client = try S3TestServer.client()
        let bucket = try await S3TestServer.bucket(client)
        let file = try S3TestServer.file(bytes: 300_000, seed: 1)
        let bytes = try Data(contentsOf: file)
        let key = "spring/a b+c.jpg"
        #expect(
            try await client.upload(file: file, to: (bucket, key), contentType: "image/jpeg", cacheControl: S3Client.immutableCacheControl)
                == .uploaded)
        let head = try #require(try await client.head(bucket: bucket, key: key))
        #expect(head.size == bytes.count && head.sha256 == S3TestServer.sha256(bytes))
        #expect(head.contentType == "image/jpeg" && head.cacheControl == "public, max-age=31536000, immutable")
        #expect(try await client.get(bucket: bucket, key: key) == bytes)
        #expect(try await client.upload(file: file, to: (bucket, key), contentType: "image/jpeg", cacheControl: "x") == .alreadyStored)
        // Other bytes under the same key are sent.
        let other = try S3TestServer.file(bytes: 1000, seed: 2)
        #expect(try await client.upload(file: other, to: (bucket, key), contentType: "image/jpeg", cacheControl: "x") == .uploaded)
        #expect(try await client.get(bucket: bucket, key: key) == Data(contentsOf: other))
        #expect(try await client.head(bucket: bucket, key: "spring/missing.jpg") == nil)
        let listed = try await client.listObjects(bucket: bucket, prefix: "spring/")
        #expect(listed == [S3Client.ListedObject(key: key, size: 1000)])
        #expect(try await client.listObjects(bucket: bucket, prefix: "autumn/").isEmpty)
    }

    @Test("above the threshold a multipart upload: the parts come back as the file, byte for byte")
    func multipart() async throws {
        let client = try S3TestServer.client(multipartThreshold: 5 << 20)
        let bucket = try await S3TestServer.bucket(client)
        let file = try S3TestServer.file(bytes: (11 << 20) + 123, seed: 3)
        let bytes = try Data(contentsOf: file)
        #expect(
            try await client.upload(file: file, to: (bucket, "movie.mp4"), contentType: "video/mp4", cacheControl: S3Client.immutableCacheControl)
                == .uploaded)
        let stored = try await client.get(bucket: bucket, key: "movie.mp4")
        #expect(stored.count == bytes.count && S3TestServer.sha256(stored) == S3TestServer.sha256(bytes))
        let head = try #require(try await client.head(bucket: bucket, key: "movie.mp4"))
        #expect(head.sha256 == S3TestServer.sha256(bytes) && head.contentType == "video/mp4")
        #expect(try await client.upload(file: file, to: (bucket, "movie.mp4"), contentType: "video/mp4", cacheControl: "x") == .alreadyStored)
    }

    @Test("a multipart upload that fails before completion is aborted: no object, no upload left open")
    func multipartAborted() async throws {
        let client = try S3TestServer.client(multipartThreshold: 5 << 20)
        let bucket = try await S3TestServer.bucket(client)
        let file = try S3TestServer.file(bytes: (6 << 20) + 1, seed: 4)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        // Told another SHA-256 than the bytes have (as when the file changes during the upload).
        await #expect(throws: S3Error.self) {
            try await client.multipartUpload(
                from: handle, bytes: (6 << 20) + 1, sha256: String(repeating: "0", count: 64), bucket: bucket, key: "changed.mp4",
                contentType: "video/mp4", cacheControl: "x")
        }
        #expect(try await client.head(bucket: bucket, key: "changed.mp4") == nil)
        let open = try await client.send(.GET, bucket: bucket, query: "uploads", what: "list uploads")
        #expect(S3XML(open.body).root == "ListMultipartUploadsResult")
        #expect(S3XML(open.body).values("ListMultipartUploadsResult/Upload/UploadId").isEmpty, "\(String(decoding: open.body, as: UTF8.self))")
    }

    @Test("a bucket that does not exist is named as such, at once")
    func missingBucket() async throws {
        let client = try S3TestServer.client()
        do {
            try await client.checkBucket("pm-missing-\(UUID().uuidString.prefix(8).lowercased())")
            Issue.record("a missing bucket passed the check")
        } catch let error as S3Error {
            #expect(error.kind == .noSuchBucket && !error.isTransient && error.message.contains("does not exist"), "\(error)")
        }
    }

    @Test("no server: unreachable after the retries, with the address in the message")
    func noServer() async throws {
        let client = try S3TestServer.client(endpoint: "http://127.0.0.1:9", backoff: S3Backoff(attempts: 3, first: .milliseconds(10)))
        do {
            try await client.checkBucket("media")
            Issue.record("a request without a server succeeded")
        } catch let error as S3Error {
            #expect(error.kind == .unreachable && error.message.contains("127.0.0.1:9") && error.message.contains("after 3 attempts"), "\(error)")
        }
    }
}
