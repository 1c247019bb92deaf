import Crypto
import Foundation
import Testing

@testable import PushMediaObjectStore

/// The signer against the reference implementation: botocore's `S3SigV4Auth` signs the same
/// requests (same credentials, region, time, headers and body) in a python3 process, and every
/// header, `Authorization` included, must be the same.
@Suite("SigV4 signing")
struct SigV4SignerTests {
    struct Case {
        var name: String
        var method: String
        var url: String
        var headers: [(name: String, value: String)]
        var body: Data
        var credentials: S3Credentials
        var region: String
    }

    static let keys = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let date = Date(timeIntervalSince1970: 1_795_343_696) // 2026-11-22T10:34:56Z

    static let cases: [Case] = [
        Case(
            name: "PUT with checksum, path-style, non-default port", method: "PUT",
            url: "http://127.0.0.1:9000/campaign-media/spring/0a1b2c3d4e5f6071-thumb.jpg",
            headers: [
                ("Content-Type", "image/jpeg"), ("Cache-Control", "public, max-age=31536000, immutable"),
                ("Content-Length", "11"), ("x-amz-checksum-sha256", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="),
                ("x-amz-meta-sha256", "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"),
            ],
            body: Data("hello world".utf8), credentials: keys, region: "us-east-1"),
        Case(
            name: "ListObjectsV2 with an encoded query, virtual-hosted https", method: "GET",
            url: "https://media-bucket.s3.eu-west-3.amazonaws.com/?list-type=2&prefix=spring%2F2026%20sale&max-keys=1",
            headers: [], body: Data(), credentials: keys, region: "eu-west-3"),
        Case(
            name: "HEAD of a key with spaces and non-ASCII, session token", method: "HEAD",
            url: "https://minio.internal/b/caf%C3%A9%20menu/photo%2B1.jpg",
            headers: [("x-amz-checksum-mode", "ENABLED")], body: Data(),
            credentials: S3Credentials(
                accessKeyID: keys.accessKeyID, secretAccessKey: keys.secretAccessKey, sessionToken: "IQoJb3JpZ2luX2VjEJr//////////token=="),
            region: "auto"),
        Case(
            name: "multipart: create, part, complete (bare and repeated query names, folded spaces)", method: "POST",
            url: "http://localhost:4566/b/big.mp4?uploads",
            headers: [("Content-Type", "video/mp4"), ("x-amz-meta-note", "  two   spaces  ")], body: Data(),
            credentials: keys, region: "us-west-2"),
        Case(
            name: "upload part", method: "PUT", url: "http://localhost:4566/b/big.mp4?uploadId=2~abc%2Fdef&partNumber=2",
            headers: [("Content-Length", "3")], body: Data([0, 1, 2]), credentials: keys, region: "us-west-2"),
    ]

    /// botocore's headers for each case (its `S3SigV4Auth.add_auth` with the clock fixed).
    static func botocore(_ cases: [Case]) throws -> [[String: String]] {
        let script = """
            import base64, datetime, json, sys
            import botocore.auth
            from botocore.awsrequest import AWSRequest
            from botocore.config import Config
            from botocore.credentials import Credentials
            out = []
            for c in json.load(sys.stdin):
                botocore.auth.get_current_datetime = lambda: datetime.datetime.fromtimestamp(c["time"], datetime.timezone.utc).replace(tzinfo=None)
                request = AWSRequest(method=c["method"], url=c["url"], data=base64.b64decode(c["body"]))
                for name, value in c["headers"]:
                    request.headers[name] = value
                request.context["client_config"] = Config(s3={"payload_signing_enabled": True})
                credentials = Credentials(c["key"], c["secret"], c.get("token"))
                botocore.auth.S3SigV4Auth(credentials, "s3", c["region"]).add_auth(request)
                out.append({k: v for k, v in request.headers.items()})
            json.dump(out, sys.stdout)
            """
        let input: [[String: Any]] = cases.map { c in
            var entry: [String: Any] = [
                "method": c.method, "url": c.url, "headers": c.headers.map { [$0.name, $0.value] }, "body": c.body.base64EncodedString(),
                "key": c.credentials.accessKeyID, "secret": c.credentials.secretAccessKey, "region": c.region,
                "time": date.timeIntervalSince1970,
            ]
            if let token = c.credentials.sessionToken { entry["token"] = token }
            return entry
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let headers = try JSONSerialization.jsonObject(with: output) as? [[String: String]] else {
            throw OracleFailed(description: "python3 with botocore failed (scripts/test installs it): \(String(decoding: errors, as: UTF8.self))")
        }
        return headers
    }

    struct OracleFailed: Error, CustomStringConvertible { var description: String }

    static func ours(_ c: Case) -> [String: String] {
        let signer = SigV4Signer(credentials: c.credentials, region: c.region)
        let sha = c.body.isEmpty ? SigV4Signer.emptyPayloadSHA256 : SigV4Signer.hex(Crypto.SHA256.hash(data: c.body))
        let request = SigV4Signer.Request(method: c.method, url: URL(string: c.url)!, headers: c.headers, payloadSHA256: sha)
        return Dictionary(signer.signedHeaders(for: request, at: date).map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("every header, Authorization included, equals botocore's for the same request")
    func matchesBotocore() throws {
        let reference = try Self.botocore(Self.cases)
        #expect(reference.count == Self.cases.count)
        for (c, theirs) in zip(Self.cases, reference) {
            let lowered = Dictionary(theirs.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            let ours = Self.ours(c)
            #expect(ours["authorization"] == lowered["authorization"], "\(c.name)")
            #expect(ours == lowered, "\(c.name)")
            #expect(lowered["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261122/") == true)
        }
    }

    @Test("the signature changes with the secret, the time, a signed header and the body; not with header order")
    func sensitivity() {
        let c = Self.cases[0]
        let base = Self.ours(c)["authorization"]
        var other = c
        other.credentials.secretAccessKey += "x"
        #expect(Self.ours(other)["authorization"] != base)
        other = c
        other.headers[0].value = "image/png"
        #expect(Self.ours(other)["authorization"] != base)
        other = c
        other.body = Data("hello worle".utf8)
        #expect(Self.ours(other)["authorization"] != base)
        other = c
        other.headers.reverse()
        #expect(Self.ours(other)["authorization"] == base)
        let later = SigV4Signer(credentials: c.credentials, region: c.region).signedHeaders(
            for: .init(method: c.method, url: URL(string: c.url)!, headers: c.headers, payloadSHA256: SigV4Signer.emptyPayloadSHA256),
            at: Self.date.addingTimeInterval(1))
        #expect(later.first { $0.name == "Authorization" }?.value != base)
    }
}
