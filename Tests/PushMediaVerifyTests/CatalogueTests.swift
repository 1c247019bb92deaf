import Crypto
import Foundation
import PushMediaModel
import PushMediaObjectStore
import Testing

/// Catalogue sizes and object storage: thousands of URLs in bounded memory, and `process --out
/// s3://…` behind the test CDN. In the same serialized suite as the other runs of `verify`, so
/// that none of them shares the machine with another.
extension VerifyCommandTests {
    /// The bytes of catalogue file `name`: small, distinct, made again from the name alone.
    static func bytes(_ name: String) -> [UInt8] {
        let seed = name.unicodeScalars.reduce(UInt32(2_166_136_261)) { ($0 ^ $1.value) &* 16_777_619 }
        return (0..<600).map { UInt8(truncatingIfNeeded: seed &+ UInt32($0) &* 2_654_435_761 >> 7) }
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    /// `count` items of two small JPEG-typed files each, on `base`, every item carrying 40 KB of
    /// warnings: a manifest that holding its items would show in the memory used.
    static func catalogue(_ count: Int, base: String, into file: URL) throws {
        let padding = String(repeating: "w", count: 40_000)
        var text = ""
        text.reserveCapacity(count * 42_000)
        for index in 0..<count {
            let attachments = [ModelAttachment.Role.thumbnail, .expanded].map { role in
                let name = String(format: "p%05d-\(role.rawValue).jpg", index)
                let data = bytes(name)
                return ModelAttachment(
                    identifier: role.rawValue, role: role, file: name, url: base + name, typeHint: "public.jpeg", fileExtension: "jpg",
                    mimeType: "image/jpeg", bytes: data.count, sha256: sha256(data),
                    options: ModelAttachment.Options(thumbnailHidden: role == .expanded))
            }
            let item = Item(
                source: String(format: "products/p%05d.jpg", index), kind: .image, status: .ok, attachments: attachments, warnings: [padding],
                delivery: NotificationDelivery(attachments: attachments, target: .init()))
            text += String(decoding: try item.jsonData(), as: UTF8.self) + "\n"
        }
        try Data(text.utf8).write(to: file)
    }

    /// Peak resident memory of `pushmedia ARGS` in KB, from GNU time (its `%M`: the child's
    /// `ru_maxrss`), and the run.
    /// The test build links AddressSanitizer's runtime into `pushmedia`, whose quarantine keeps
    /// up to 256 MB of freed memory from being used again: it is turned off here, so that what
    /// is measured is what the program holds.
    static func peakRSS(_ arguments: [String], in folder: URL) async throws -> (kilobytes: Int, run: Support.Run) {
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
        let run = try await Support.run(
            "/usr/bin/time", ["-f", "peak-rss-kb %M", Support.pushmedia] + arguments, in: folder, environment: environment)
        let line = try #require(run.error.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb ") })
        return (try #require(Int(line.dropFirst("peak-rss-kb ".count))), run)
    }

    @Test("2,000 URLs verify in the memory 200 take: peak RSS does not grow with the manifest")
    func boundedMemory() async throws {
        let ca = try await TestCA.shared.value
        let cdn = try await TestCDN.start(
            ca: ca,
            origin: { name in
                TestCDN.Object(
                    bytes: Self.bytes((name as NSString).lastPathComponent), contentType: "image/jpeg",
                    cacheControl: "public, max-age=31536000, immutable")
            })
        defer { cdn.stop() }
        let folder = try Support.temporaryFolder("catalogue")
        var peaks: [Int] = []
        for count in [100, 1000] {
            let manifest = folder.appendingPathComponent("catalogue-\(count).ndjson")
            try Self.catalogue(count, base: cdn.base + "products/", into: manifest)
            let (peak, run) = try await Self.peakRSS(
                ["verify", "--manifest", manifest.path, "--ca-file", ca.caFile.path, "--json"] + Support.roomyCutOffs, in: folder)
            #expect(run.status == 0, "\(run.error.suffix(2000))")
            let summary = try JSONDecoder().decode(VerifySummaryLine.self, from: Data(try #require(run.lines.last).utf8))
            #expect(summary.urls == 2 * count && summary.ok == 2 * count && run.lines.count == 2 * count + 1)
            peaks.append(peak)
        }
        let large = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("catalogue-1000.ndjson").path)[.size] as! Int
        #expect(large > 40_000_000, "the large manifest is big enough to show if it were held")
        // Holding the 1,000 items (40 MB of JSON, more decoded) would add far more than this.
        #expect(peaks[1] - peaks[0] < 20_000, "peak RSS \(peaks[0]) KB for 200 URLs, \(peaks[1]) KB for 2,000")
    }

    /// The summary line's counts.
    struct VerifySummaryLine: Decodable {
        var urls: Int
        var ok: Int
    }

    @Test("process --out s3://… to the test S3 server, served through the test CDN in front of the bucket, verifies clean")
    func bucketBehindCDN() async throws {
        guard let endpoint = ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_S3_ENDPOINT"], !endpoint.isEmpty else {
            try #require(
                ProcessInfo.processInfo.environment["CI"] != "true", "PUSHMEDIA_TEST_S3_ENDPOINT is not set: scripts/test starts moto's server")
            return
        }
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in [
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": endpoint,
        ] {
            environment[name] = value
        }
        let client = S3Client(configuration: try S3Configuration.fromEnvironment(environment))
        let bucket = "pm-verify-\(UUID().uuidString.prefix(8).lowercased())"
        try await client.createBucket(bucket)
        let campaign = try await ProcessedCampaign.make(
            jpegs: ["a.jpg", "b.jpg", "c.jpg"], others: ["d.png", "e.mp4"], destination: "s3://\(bucket)/spring", environment: environment)

        // The CDN's origin is the bucket: each GET becomes a HEAD (type, caching) and a GET of
        // the object under the prefix.
        let ca = try await TestCA.shared.value
        let cdn = try await TestCDN.start(
            ca: ca,
            origin: { key in
                guard let head = try await client.head(bucket: bucket, key: "spring/\(key)") else { return nil }
                let data = try await client.get(bucket: bucket, key: "spring/\(key)")
                return TestCDN.Object(bytes: Array(data), contentType: head.contentType ?? "binary/octet-stream", cacheControl: head.cacheControl)
            })
        defer { cdn.stop() }
        let folder = try Support.temporaryFolder("s3")
        // The manifest as the bucket has it, its URLs moved onto the test CDN.
        let stored = folder.appendingPathComponent("stored.ndjson")
        try await client.get(bucket: bucket, key: "spring/manifest.ndjson").write(to: stored)
        var items: [Item] = []
        try Manifest.forEachLine(ofNDJSON: stored) {
            items.append($0)
            return true
        }
        #expect(items.count == 5 && items.allSatisfy { $0.status == .ok })
        let manifest = try ProcessedCampaign.rehost(items, base: cdn.base, moved: [:], into: folder.appendingPathComponent("manifest.ndjson"))
        let run = try await Support.pushmedia(
            ["verify", "--manifest", manifest.path, "--ca-file", ca.caFile.path] + Support.roomyCutOffs, in: folder)
        #expect(run.status == 0, "\(run.output)\(run.error)")
        // A movie's expanded poster is named by no payload (FCM gets the Android image).
        let published = VerifyCommandTests.published(items)
        #expect(run.lines.last?.hasPrefix("\(published) URLs of 5 items: \(published) deliverable, 0 not; 0 with warnings") == true, "\(run.output)")
        #expect(
            campaign.output.contains("verify:   copy s3://\(bucket)/spring/manifest.ndjson here, then: pushmedia verify --manifest manifest.ndjson"),
            "\(campaign.output)")
    }
}
