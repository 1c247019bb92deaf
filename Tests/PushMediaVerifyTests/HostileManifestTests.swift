import Foundation
import PushMediaModel
import PushMediaVerify
import Testing

/// Manifests and flags no run writes (numbers out of range, a delivery target of years, ports
/// past 65535), and servers that close reused connections: clear errors or the right result,
/// never a trap.
@Suite("verify on hostile manifests, flags and servers", .serialized)
struct HostileManifestTests {
    /// An NDJSON manifest of `items` in a new folder.
    static func manifest(_ items: [Item], named name: String) throws -> (folder: URL, file: URL) {
        let folder = try Support.temporaryFolder(name)
        let text = try items.map { String(decoding: try $0.jsonData(), as: UTF8.self) + "\n" }.joined()
        let file = folder.appendingPathComponent("manifest.ndjson")
        try Data(text.utf8).write(to: file)
        return (folder, file)
    }

    /// Each number out of range, and the field the error must name.
    static func hostile() -> [(name: String, item: Item, field: String)] {
        var negative = Items.image("negative.jpg")
        negative.attachments[0].bytes = -5
        var huge = Items.image("huge.jpg")
        huge.attachments[1].bytes = Int.max - 7
        var slowLink = Items.image("slow-link.jpg")
        slowLink.delivery = NotificationDelivery(bytes: 1000, budget: 1_000_000_000_000_000_000, seconds: 1, linkBitsPerSecond: 1)
        var oneBit = Items.image("one-bit.jpg")
        oneBit.delivery = NotificationDelivery(bytes: 1000, budget: 1_000_000, seconds: 1, linkBitsPerSecond: 1)
        var hugeBudget = Items.image("huge-budget.jpg")
        hugeBudget.delivery = NotificationDelivery(bytes: 1000, budget: 1 << 60, seconds: 1, linkBitsPerSecond: 1_000_000)
        var source = Items.image("source.jpg")
        source.sourceBytes = -1
        var wide = Items.image("wide.jpg")
        wide.attachments[2].width = Int.max
        var schemeRelative = Items.image("scheme-relative.jpg")
        schemeRelative.attachments[0].file = "//evil.example/x.jpg"
        var climbing = Items.image("climbing.jpg")
        climbing.attachments[1].file = "../../etc/passwd"
        var absolute = Items.image("absolute.jpg")
        absolute.attachments[2].file = "/etc/passwd"
        var scheme = Items.image("scheme.jpg")
        scheme.attachments[0].file = "javascript:alert(1)"
        return [
            ("scheme-relative", schemeRelative, "attachments[0].file"), ("climbing", climbing, "attachments[1].file"),
            ("absolute", absolute, "attachments[2].file"), ("scheme", scheme, "attachments[0].file"),
            ("negative", negative, "attachments[0].bytes"), ("huge", huge, "attachments[1].bytes"),
            ("slow-link", slowLink, "delivery.budget"), ("one-bit", oneBit, "delivery.linkBitsPerSecond"),
            ("huge-budget", hugeBudget, "delivery.budget"),
            ("source", source, "sourceBytes"), ("wide", wide, "attachments[2].width"),
        ]
    }

    @Test(
        "a number out of its range or a file outside the output folder is refused naming the line and the field, by verify, payload and preview; never a trap"
    )
    func numbersOutOfRange() async throws {
        for (name, item, field) in Self.hostile() {
            let good = Items.image("good.jpg")
            let (folder, file) = try Self.manifest([good, item], named: "hostile-\(name)")
            let verify = try await Support.pushmedia(["verify", "--manifest", file.path], in: folder)
            #expect(verify.status == 2, "\(name): \(verify.status) \(verify.error)")
            #expect(verify.error.contains("line 2") && verify.error.contains(field), "\(name): \(verify.error)")
            let payload = try await Support.pushmedia(
                ["payload", "--manifest", file.path, "--item", item.source, "--format", "apns", "--title", "Sale"], in: folder)
            #expect(payload.status != 0 && payload.status < 128, "\(name): payload \(payload.status) \(payload.error)")
            #expect(payload.error.contains(field), "\(name): \(payload.error)")
            let preview = try await Support.pushmedia(
                ["preview", "--manifest", file.path, "--out", folder.appendingPathComponent("p.html").path], in: folder)
            #expect(preview.status != 0 && preview.status < 128, "\(name): preview \(preview.status) \(preview.error)")
            #expect(preview.error.contains(field), "\(name): \(preview.error)")
        }
    }

    @Test("a size that is not a whole number says which field and what it is, not that the file is not JSON")
    func fractionalSize() async throws {
        let (folder, file) = try Self.manifest([Items.image("a.jpg")], named: "fraction")
        let text = try String(contentsOf: file, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\"bytes\":10744", with: "\"bytes\":1.5")
        #expect(edited != text)
        try Data(edited.utf8).write(to: file)
        let run = try await Support.pushmedia(["verify", "--manifest", file.path], in: folder)
        #expect(run.status == 2)
        #expect(run.error.contains("attachments[0].bytes") && run.error.contains("whole number"), "\(run.error)")
        #expect(!run.error.contains("not valid JSON"), "\(run.error)")
    }

    @Test("a delivery target past 600 s is waited for 600 s at most, whatever the budget and link")
    func deliveryTargetClamped() throws {
        var item = Items.image("slow.jpg")
        item.delivery = NotificationDelivery(
            bytes: 1000, budget: ManifestNumbers.maxBytes, seconds: 1, linkBitsPerSecond: ManifestNumbers.linkBitsPerSecond.lowerBound)
        #expect(item.valueProblem() == nil)
        #expect(item.deliveryTargetSeconds > 1e9)
        let urls = try PublishedURL.urls(of: item, builder: .init(baseURL: nil), limits: VerifyLimits())
        #expect(!urls.isEmpty)
        for url in urls { #expect(url.deadline <= VerifyLimits.longestSeconds && url.deadline > 0, "\(url.role): \(url.deadline)") }
        #expect(urls.contains { $0.deadline == VerifyLimits.longestSeconds })
    }

    @Test("flags out of range are exit 2 that says what is wrong: a port past 65535, a cut-off of 1e-300 s, a CA file that is not there")
    func flags() async throws {
        let (folder, file) = try Self.manifest([Items.image("a.jpg")], named: "flags")
        let port = try await Support.pushmedia(["verify", "--manifest", file.path, "--allow-host", "cdn.example.com:99999"], in: folder)
        #expect(port.status == 2 && port.error.contains("--allow-host") && port.error.contains("65535"), "\(port.error)")
        let tiny = try await Support.pushmedia(["verify", "--manifest", file.path, "--fcm-seconds", "1e-300"], in: folder)
        #expect(tiny.status == 2 && tiny.error.contains("--fcm-seconds must be 0.1 to 600"), "\(tiny.error)")
        let long = try await Support.pushmedia(["verify", "--manifest", file.path, "--ios-seconds", "601"], in: folder)
        #expect(long.status == 2 && long.error.contains("--ios-seconds"), "\(long.error)")
        let ca = try await Support.pushmedia(["verify", "--manifest", file.path, "--ca-file", "/nonexistent/ca.pem"], in: folder)
        #expect(ca.status == 2 && ca.error.contains("--ca-file") && ca.error.contains("does not exist"), "\(ca.error)")
        #expect(!ca.error.contains("failedToLoadCertificate"), "\(ca.error)")
        // A port in range passes --allow-host's check: the next check (--ca-file) is the one that fails.
        let fine = try await Support.pushmedia(
            ["verify", "--manifest", file.path, "--allow-host", "cdn.example.com:8443", "--ca-file", "/nonexistent/ca.pem"], in: folder)
        #expect(fine.status == 2 && fine.error.contains("--ca-file") && !fine.error.contains("give a host name or address"), "\(fine.error)")
    }

    @Test(
        "a server that closes reused keep-alive connections without saying so: every URL is fetched on a new connection and passes",
        arguments: [1, 4])
    func closedIdleConnections(concurrency: Int) async throws {
        let ca = try await TestCA.shared.value
        let campaign = try await ProcessedCampaign.shared.value
        let cdn = try await TestCDN.start(ca: ca, origin: TestCDN.folderOrigin(campaign.out), oneRequestPerConnection: true)
        defer { cdn.stop() }
        let folder = try Support.temporaryFolder("keep-alive-\(concurrency)")
        let manifest = try campaign.manifest(base: cdn.base, in: folder)
        // Each URL after the first few is sent on a pooled connection that the server then
        // closes unanswered; with several connections at once the pool holds several dead ones.
        let run = try await Support.pushmedia(
            ["verify", "--manifest", manifest.path, "--json", "--concurrency", "\(concurrency)", "--ca-file", ca.caFile.path]
                + Support.roomyCutOffs, in: folder)
        let (urls, summary) = try VerifyCommandTests.decode(run)
        let published = VerifyCommandTests.published(campaign.items)
        #expect(run.status == 0, "\(urls.filter { $0.problem != nil }.map { "\($0.source) \($0.role): \($0.problem ?? "")" })")
        #expect(summary.urls == published && summary.failed == 0)
        // Each URL was answered once: on a connection of its own.
        #expect(cdn.received.count == published)
    }
}
