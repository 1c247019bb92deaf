import Foundation
import Testing

@testable import PushMediaObjectStore

@Suite("S3 configuration, --out destinations, errors, backoff")
struct ConfigurationTests {
    let keys = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test("credentials and region from the AWS variables; us-east-1 and AWS_DEFAULT_REGION as fallbacks")
    func environment() throws {
        let plain = try S3Configuration.fromEnvironment(keys)
        #expect(plain.credentials == S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
        #expect(plain.region == "us-east-1" && plain.endpoint == nil)
        let full = try S3Configuration.fromEnvironment(
            keys.merging([
                "AWS_SESSION_TOKEN": "tok", "AWS_DEFAULT_REGION": "eu-west-1", "AWS_REGION": "eu-central-1",
                "AWS_ENDPOINT_URL": "http://ignored:1", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000",
            ]) { $1 })
        #expect(full.credentials.sessionToken == "tok" && full.region == "eu-central-1")
        #expect(full.endpoint == URL(string: "http://127.0.0.1:9000"))
        #expect(try S3Configuration.fromEnvironment(keys.merging(["AWS_DEFAULT_REGION": "ap-south-1"]) { $1 }).region == "ap-south-1")
        #expect(try S3Configuration.fromEnvironment(keys.merging(["AWS_ENDPOINT_URL": "https://r2.example"]) { $1 }).endpoint?.host == "r2.example")
    }

    @Test("missing credentials and a bad endpoint are refused with the variable's name")
    func refused() {
        #expect(throws: S3Configuration.Invalid.self) {
            try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": ""])
        }
        do {
            _ = try S3Configuration.fromEnvironment(keys.merging(["AWS_ENDPOINT_URL_S3": "minio:9000"]) { $1 })
            Issue.record("a URL without a scheme was accepted")
        } catch {
            #expect("\(error)".contains("AWS_ENDPOINT_URL_S3"))
        }
    }

    @Test("URLs: path-style under an endpoint, virtual-hosted on AWS; keys percent-encoded except /")
    func urls() throws {
        let aws = try S3Configuration.fromEnvironment(keys.merging(["AWS_REGION": "eu-west-3"]) { $1 })
        #expect(
            aws.url(bucket: "media", key: "spring/a b+é.jpg").absoluteString == "https://media.s3.eu-west-3.amazonaws.com/spring/a%20b%2B%C3%A9.jpg")
        #expect(aws.url(bucket: "media", query: "list-type=2").absoluteString == "https://media.s3.eu-west-3.amazonaws.com/?list-type=2")
        let minio = try S3Configuration.fromEnvironment(keys.merging(["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000/"]) { $1 })
        #expect(minio.url(bucket: "media", key: "x/y.jpg").absoluteString == "http://127.0.0.1:9000/media/x/y.jpg")
        #expect(minio.url(bucket: "media", query: "uploads").absoluteString == "http://127.0.0.1:9000/media?uploads")
        #expect(S3Path.encodeQueryValue("a/b c~") == "a%2Fb%20c~")
    }

    @Test("--out: s3://bucket/prefix is storage, anything else a folder; bad bucket names are refused")
    func destinations() throws {
        #expect(try OutputDestination(parsing: "out/fixtures") == .folder("out/fixtures"))
        #expect(try OutputDestination(parsing: "s3://media-bucket/spring/2026/") == .s3(S3Location(bucket: "media-bucket", prefix: "spring/2026")))
        #expect(try OutputDestination(parsing: "S3://media-bucket") == .s3(S3Location(bucket: "media-bucket", prefix: "")))
        let location = S3Location(bucket: "b12", prefix: "/a//b/")
        #expect(location.prefix == "a/b" && location.key("x.jpg") == "a/b/x.jpg" && location.description == "s3://b12/a/b")
        #expect(S3Location(bucket: "b12", prefix: "").key("x.jpg") == "x.jpg")
        for bad in ["s3://", "s3://Media", "s3://ab", "s3://-media", "s3://media_bucket/x", "s3://media/../x"] {
            #expect(throws: S3Configuration.Invalid.self, "\(bad)") { try OutputDestination(parsing: bad) }
        }
    }

    @Test("S3's error documents become kinds: missing bucket, credentials, clock skew, busy, denied")
    func errors() {
        func error(_ status: Int, _ code: String) -> S3Error {
            let body =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>m &amp; n</Message><RequestId>1</RequestId></Error>"
            return S3Error.from(status: status, body: Data(body.utf8), what: "PUT s3://b/k")
        }
        #expect(error(404, "NoSuchBucket").kind == .noSuchBucket)
        #expect(error(403, "InvalidAccessKeyId").kind == .invalidCredentials)
        #expect(error(403, "SignatureDoesNotMatch").message.contains("AWS_SECRET_ACCESS_KEY"))
        #expect(error(403, "RequestTimeTooSkewed").kind == .clockSkew)
        #expect(error(403, "RequestTimeTooSkewed").message.contains("clock"))
        #expect(error(403, "AccessDenied").kind == .accessDenied)
        #expect(error(503, "SlowDown").isTransient && error(500, "InternalError").isTransient)
        #expect(error(400, "RequestTimeout").isTransient)
        #expect(!error(403, "AccessDenied").isTransient && !error(404, "NoSuchBucket").isTransient)
        #expect(error(400, "InvalidArgument").message == "PUT s3://b/k: HTTP 400 InvalidArgument: m & n")
        let bodiless = S3Error.from(status: 502, body: Data(), what: "HEAD s3://b/k")
        #expect(bodiless.kind == .serverBusy && bodiless.code == nil)
    }

    @Test("backoff doubles up to the cap, with jitter in [½, 1], and stops after the last attempt")
    func backoff() {
        let low = S3Backoff(attempts: 5, first: .milliseconds(100), longest: .milliseconds(500), random: { 0 })
        let high = S3Backoff(attempts: 5, first: .milliseconds(100), longest: .milliseconds(500), random: { 0.999999 })
        #expect((1...4).map { high.wait(afterAttempt: $0)! }.map { Int(($0 / .milliseconds(1)).rounded()) } == [100, 200, 400, 500])
        #expect(Int((low.wait(afterAttempt: 1)! / .milliseconds(1)).rounded()) == 50)
        #expect(high.wait(afterAttempt: 5) == nil)
    }
}
