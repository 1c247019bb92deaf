import Crypto
import Foundation
import PushMediaModel
import PushMediaObjectStore
import Testing

/// A bucket of its own on the test S3 server, the environment that points `pushmedia` at it, and
/// checks of what the bucket holds against a manifest.
struct S3Fixture {
    static var endpoint: String? {
        guard let value = ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_S3_ENDPOINT"], !value.isEmpty else { return nil }
        return value
    }

    static var enabled: Bool { endpoint != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    let endpoint: String
    let bucket: String
    let client: S3Client
    /// The test's environment plus the AWS variables for the test server.
    let environment: [String: String]

    init() async throws {
        endpoint = try #require(Self.endpoint, "PUSHMEDIA_TEST_S3_ENDPOINT is not set: scripts/test starts moto's server")
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in [
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": endpoint,
        ] {
            environment[name] = value
        }
        self.environment = environment
        client = S3Client(configuration: try S3Configuration.fromEnvironment(environment))
        bucket = "pm-e2e-\(UUID().uuidString.prefix(8).lowercased())"
        try await client.createBucket(bucket)
    }

    /// Runs `pushmedia` with this fixture's (or the given) environment to the end.
    func run(_ arguments: [String], in folder: URL, environment: [String: String]? = nil) async throws
        -> (status: Int32, output: String, error: String)
    {
        let process = try BackgroundProcess(
            Support.pushmedia, arguments, in: folder, name: "run-\(UUID().uuidString.prefix(8))", environment: environment ?? self.environment)
        let status = await process.exitStatus(within: 600)
        return (status, process.output, process.error)
    }

    /// A TCP proxy to the server on `port` (scripts/lib/tcp-proxy.py), once it listens. With
    /// `cutAtPut`, the proxy exits by itself when that PUT arrives (the ones before it forwarded).
    func proxy(port: Int, in folder: URL, name: String, cutAtPut: Int? = nil) throws -> BackgroundProcess {
        let target = URLComponents(string: endpoint)!
        let proxy = try BackgroundProcess(
            "/usr/bin/env",
            ["python3", Support.packageRoot.appendingPathComponent("scripts/lib/tcp-proxy.py").path, "\(port)", target.host!, "\(target.port!)"]
                + (cutAtPut.map { ["--cut-at-put", "\($0)"] } ?? []),
            in: folder, name: name)
        let end = Date().addingTimeInterval(20)
        while !proxy.output.contains("listening") && Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        return proxy
    }

    /// Every attachment of `manifest` is an object under `prefix` with its size, its SHA-256 (of
    /// the bytes read back), `Content-Type` and the immutable `Cache-Control`; with `exact`, the
    /// prefix holds nothing else but `extra` (no temporary or partial objects).
    func expectStored(_ manifest: Manifest, prefix: String, extra: Set<String>, exact: Bool = true) async throws {
        let listed = try await client.listObjects(bucket: bucket, prefix: prefix + "/")
        let sizes = Dictionary(listed.map { ($0.key, $0.size) }, uniquingKeysWith: { a, _ in a })
        let attachments = manifest.items.flatMap(\.attachments)
        for attachment in attachments {
            let key = "\(prefix)/\(attachment.file)"
            #expect(sizes[key] == attachment.bytes, "\(key): listed \(sizes[key].map(String.init) ?? "missing"), manifest \(attachment.bytes)")
            let data = try await client.get(bucket: bucket, key: key)
            #expect(Self.sha256(data) == attachment.sha256, "\(key)")
            let head = try #require(try await client.head(bucket: bucket, key: key))
            #expect(head.contentType == attachment.mimeType && head.cacheControl == S3Client.immutableCacheControl, "\(key)")
        }
        if exact {
            let expected = Set(attachments.map { "\(prefix)/\($0.file)" }).union(extra.map { "\(prefix)/\($0)" })
            #expect(Set(sizes.keys) == expected)
        }
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
