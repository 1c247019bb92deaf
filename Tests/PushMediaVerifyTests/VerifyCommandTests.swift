import Crypto
import Foundation
import PushMediaModel
import PushMediaVerify
import Testing

/// `pushmedia verify` against a local HTTPS CDN with its own CA, serving a real `process` output.
@Suite("pushmedia verify against a test CDN", .serialized)
struct VerifyCommandTests {
    /// One misbehaviour per item, on one of its URLs, and the code it must be flagged with.
    static let misbehaviours: [(source: String, role: ModelAttachment.Role, behaviour: TestCDN.Behaviour, code: ProblemCode)] = [
        ("type.jpg", .thumbnail, .contentType("binary/octet-stream"), .wrongContentType),
        ("missing.jpg", .thumbnail, .status(404), .notFound),
        ("denied.jpg", .thumbnail, .status(403), .forbidden),
        ("cut.jpg", .thumbnail, .cutOff, .truncated),
        ("extra.jpg", .thumbnail, .extraBytes(312), .extraBytes),
        ("swapped.jpg", .thumbnail, .otherBytes, .wrongBytes),
        ("downgrade.jpg", .thumbnail, .redirectToHTTP, .insecureRedirect),
        ("loop.jpg", .thumbnail, .redirectLoop, .redirectLoop),
        ("endless.jpg", .thumbnail, .endless, .bodyOverrun),
        // FCM's Android SDK alone downloads the Android image (here a movie's poster): the server
        // holds its second half until the client gives up at FCM's cut-off.
        ("drip.mp4", .android, .dripNeverEnding, .slowForFCM),
        ("silent.jpg", .thumbnail, .silent, .noResponse),
        ("unsized.jpg", .android, .noContentLength, .noContentLength),
        ("br.jpg", .thumbnail, .unofferedEncoding, .unofferedEncoding),
        ("garbled.jpg", .thumbnail, .garbledLength, .invalidResponse),
    ]
    /// Misbehaviours of the host a URL names rather than of the file: a server that takes the
    /// connection and never sends a byte, a certificate for another name (`localhost`'s,
    /// reached as 127.0.0.1).
    static let hostMisbehaviours: [(source: String, role: ModelAttachment.Role, code: ProblemCode)] = [
        ("deaf.jpg", .thumbnail, .noResponse), ("wrongname.jpg", .thumbnail, .certificateWrongName),
    ]

    /// URLs verify checks: every attachment but a movie's or audio's expanded image, which no
    /// payload names (iOS gets the media file, Android its own image).
    static func published(_ items: [Item]) -> Int {
        items.reduce(0) { count, item in
            count + item.attachments.filter { $0.role != .expanded || item.attachment(.media) == nil }.count
        }
    }

    static func decode(_ run: Support.Run) throws -> (urls: [URLReport], summary: VerifySummary) {
        let lines = run.lines
        let decoder = JSONDecoder()
        let summary = try decoder.decode(VerifySummary.self, from: Data(try #require(lines.last).utf8))
        let urls = try lines.dropLast().map { try decoder.decode(URLReport.self, from: Data($0.utf8)) }
        return (urls, summary)
    }

    static func fileName(_ attachment: ModelAttachment) -> String { (attachment.file as NSString).lastPathComponent }

    @Test("each misbehaviour is flagged with its code and nothing else is; the run ends within its deadlines; the lines match the schema")
    func misbehaviours() async throws {
        let ca = try await TestCA.shared.value
        let campaign = try await ProcessedCampaign.shared.value
        var behaviours: [String: TestCDN.Behaviour] = [:]
        for m in Self.misbehaviours { behaviours[Self.fileName(campaign.attachment(m.source, m.role))] = m.behaviour }
        behaviours[Self.fileName(campaign.attachment("moved.jpg", .thumbnail))] = .redirect
        let cdn = try await TestCDN.start(ca: ca, origin: TestCDN.folderOrigin(campaign.out), behaviours: behaviours)
        let silent = try await SilentListener.start()
        defer {
            cdn.stop()
            silent.stop()
        }
        let folder = try Support.temporaryFolder("misbehaviours")
        let manifest = try campaign.manifest(
            base: cdn.base,
            moved: ["deaf.jpg thumbnail": "https://localhost:\(silent.port)/cdn/", "wrongname.jpg thumbnail": "https://127.0.0.1:\(cdn.port)/cdn/"],
            in: folder)
        // Both cut-offs at 15 s: the misbehaving servers hold their answers until the client
        // gives up, so they are flagged whatever the deadline, and the URLs served well have
        // room to finish on a busy machine (FCM's own 5 s would fail them there).
        let deadline = 15.0
        let started = ContinuousClock.now
        let run = try await Support.pushmedia(
            [
                "verify", "--manifest", manifest.path, "--json", "--ca-file", ca.caFile.path, "--ios-seconds", "\(Int(deadline))",
                "--fcm-seconds", "\(Int(deadline))",
            ], in: folder)
        let took = ContinuousClock.now - started
        #expect(run.status == 1, "\(run.error)")
        // The URLs that wait for their deadline wait side by side, and nothing lingers after
        // them: the whole run is a few deadlines at most.
        #expect(took < .seconds(3 * deadline), "verify took \(took)")
        let (urls, summary) = try Self.decode(run)

        var expected: [String: ProblemCode] = [:]
        for m in Self.misbehaviours { expected["\(m.source) \(m.role.rawValue)"] = m.code }
        for m in Self.hostMisbehaviours { expected["\(m.source) \(m.role.rawValue)"] = m.code }
        let published = Self.published(campaign.items)
        #expect(urls.count == published && summary.urls == published)
        #expect(Set(urls.map { "\($0.source) \($0.role)" }).count == published, "every URL once")
        for url in urls {
            let key = "\(url.source) \(url.role)"
            if let code = expected[key] {
                #expect(!url.ok && url.problems == [code.rawValue] && url.problem == code.rawValue, "\(key): \(url.problems) \(url.fix ?? "")")
                #expect(url.fix?.isEmpty == false)
            } else {
                #expect(url.ok && url.problems.isEmpty, "\(key): \(url.problems) \(url.fix ?? "")")
            }
            // Each fetch ended by its deadline, with room for a busy machine.
            #expect(url.seconds <= deadline + 5, "\(key) took \(url.seconds) s")
        }
        #expect(summary.failed == expected.count && summary.ok == published - expected.count)
        #expect(summary.problems == Dictionary(expected.values.map { ($0.rawValue, 1) }, uniquingKeysWith: +))

        let byKey = Dictionary(uniqueKeysWithValues: urls.map { ("\($0.source) \($0.role)", $0) })
        // Reading stopped one byte past the file, however much the server would send.
        let endless = try #require(byKey["endless.jpg thumbnail"])
        #expect(endless.bytes == endless.expectedBytes + 1)
        #expect(byKey["drip.mp4 android"]?.downloaders == ["fcm"] && byKey["drip.mp4 media"]?.downloaders == ["ios"])
        #expect(byKey["drip.mp4 expanded"] == nil, "no payload names a movie's expanded poster")
        #expect(byKey["clean.jpg expanded"]?.downloaders == ["ios"] && byKey["clean.jpg android"]?.downloaders == ["fcm"])
        let moved = try #require(byKey["moved.jpg thumbnail"])
        #expect(moved.ok && moved.redirects == 1 && moved.finalURL?.contains("/moved/") == true)
        #expect(moved.warnings.count == 1 && moved.warnings[0].hasPrefix("1 redirect to"))
        #expect(byKey["cut.jpg thumbnail"]?.fix?.contains("the connection ended after") == true)
        #expect(byKey["extra.jpg thumbnail"]?.fix?.hasPrefix("the object is 312 bytes longer than the file") == true)
        #expect(byKey["type.jpg thumbnail"]?.fix == "serve image/jpeg (the server sent binary/octet-stream)")

        // The downloaders' headers: iOS's for what iOS downloads, Android's for what FCM's
        // Android SDK alone does (every item's Android image).
        let androidOnly = Set(urls.filter { $0.downloaders == ["fcm"] }.map { ($0.url as NSString).lastPathComponent })
        let androidImages = Set(campaign.items.compactMap { $0.attachment(.android).map { ($0.file as NSString).lastPathComponent } })
        #expect(!androidOnly.isEmpty && androidOnly == androidImages)
        for request in cdn.received {
            let agent = request.headers.first(name: "user-agent") ?? ""
            if androidOnly.contains((request.uri as NSString).lastPathComponent) {
                #expect(
                    agent.hasPrefix("Dalvik/2.1.0 (Linux; U; Android") && request.headers.first(name: "accept-encoding") == "gzip",
                    "\(request.uri): \(agent)")
            } else {
                #expect(agent.contains(" CFNetwork/") && request.headers.first(name: "accept") == "*/*", "\(request.uri): \(agent)")
            }
            #expect(request.method == .GET && agent.contains("pushmedia-verify/"))
        }

        let lines = folder.appendingPathComponent("verify.ndjson")
        try Data(run.output.utf8).write(to: lines)
        let schema = try await Support.validateLines(lines, schema: "docs/verify.schema.json")
        #expect(schema.status == 0, "\(schema.output)\(schema.error)")
    }

    @Test("a correct CDN passes: exit 0, every URL ok, the table's last line counts them")
    func correctCDN() async throws {
        let ca = try await TestCA.shared.value
        let campaign = try await ProcessedCampaign.shared.value
        let cdn = try await TestCDN.start(ca: ca, origin: TestCDN.folderOrigin(campaign.out))
        defer { cdn.stop() }
        let folder = try Support.temporaryFolder("correct")
        let manifest = try campaign.manifest(base: cdn.base, in: folder)
        let run = try await Support.pushmedia(
            ["verify", "--manifest", manifest.path, "--ca-file", ca.caFile.path] + Support.roomyCutOffs, in: folder)
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let published = Self.published(campaign.items)
        #expect(
            run.lines.last?.hasPrefix("\(published) URLs of \(campaign.items.count) items: \(published) deliverable, 0 not; 0 with warnings") == true,
            "\(run.output)")
        // The table lists 50 ok lines at most, then counts the rest.
        let okLines = run.lines.filter { $0.hasPrefix("ok   ") }.count
        #expect(okLines == min(published, 50) && (published <= 50 || run.output.contains("… and \(published - 50) more ok")))
        #expect(!run.output.contains("FAIL"))
    }

    @Test("the table: the URLs a phone would drop first, one line each with its fix; then the rest; exit 1")
    func table() async throws {
        let ca = try await TestCA.shared.value
        let campaign = try await ProcessedCampaign.shared.value
        let behaviours: [String: TestCDN.Behaviour] = [
            Self.fileName(campaign.attachment("type.jpg", .thumbnail)): .contentType("text/html"),
            Self.fileName(campaign.attachment("missing.jpg", .expanded)): .status(404),
        ]
        let cdn = try await TestCDN.start(ca: ca, origin: TestCDN.folderOrigin(campaign.out), behaviours: behaviours)
        defer { cdn.stop() }
        let folder = try Support.temporaryFolder("table")
        let manifest = try campaign.manifest(base: cdn.base, in: folder)
        let run = try await Support.pushmedia(
            ["verify", "--manifest", manifest.path, "--ca-file", ca.caFile.path] + Support.roomyCutOffs, in: folder)
        #expect(run.status == 1)
        let lines = run.lines
        #expect(lines.count >= 3)
        #expect(lines[0].hasPrefix("FAIL missing.jpg expanded: not_found: HTTP 404"), "\(run.output)")
        #expect(
            lines[1].hasPrefix("FAIL type.jpg thumbnail: wrong_content_type: serve image/jpeg (the server sent text/html) <https://localhost:"),
            "\(run.output)")
        #expect(lines[2].hasPrefix("ok   "))
        #expect(lines.last?.contains("deliverable, 2 not (not_found 1, wrong_content_type 1)") == true, "\(run.output)")
    }

    @Test("exit 2 when it cannot run: no manifest, no base URL, bad flags, an unusable CA file")
    func cannotRun() async throws {
        let campaign = try await ProcessedCampaign.shared.value
        let folder = try Support.temporaryFolder("usage")
        let missing = try await Support.pushmedia(["verify", "--manifest", folder.appendingPathComponent("nope.ndjson").path], in: folder)
        #expect(missing.status == 2 && missing.error.contains("cannot read manifest"))
        var bare = campaign.items
        for i in bare.indices { for j in bare[i].attachments.indices { bare[i].attachments[j].url = nil } }
        let noURLs = try ProcessedCampaign.rehost(bare, base: "", moved: [:], into: folder.appendingPathComponent("bare.ndjson"))
        let noBase = try await Support.pushmedia(["verify", "--manifest", noURLs.path], in: folder)
        #expect(noBase.status == 2 && noBase.error.contains("give --base-url"), "\(noBase.error)")
        let httpBase = try await Support.pushmedia(["verify", "--manifest", noURLs.path, "--base-url", "http://cdn.example.com/"], in: folder)
        #expect(httpBase.status == 2 && httpBase.error.contains("--base-url"), "\(httpBase.error)")
        let badFlag = try await Support.pushmedia(["verify", "--manifest", noURLs.path, "--concurrency", "0"], in: folder)
        #expect(badFlag.status == 2)
        let junk = folder.appendingPathComponent("junk.pem")
        try Data("not a certificate".utf8).write(to: junk)
        let badCA = try await Support.pushmedia(
            ["verify", "--manifest", campaign.out.appendingPathComponent("manifest.ndjson").path, "--ca-file", junk.path], in: folder)
        #expect(badCA.status == 2 && badCA.error.contains("--ca-file"), "\(badCA.error)")
        let notManifest = folder.appendingPathComponent("notes.ndjson")
        try Data("hello\n".utf8).write(to: notManifest)
        let notItems = try await Support.pushmedia(["verify", "--manifest", notManifest.path], in: folder)
        #expect(notItems.status == 2 && notItems.error.contains("line 1"), "\(notItems.error)")
    }

    @Test("process prints the verify command to run when it has a base URL")
    func processSuggestsVerify() async throws {
        let campaign = try await ProcessedCampaign.shared.value
        let ndjson = campaign.out.appendingPathComponent("manifest.ndjson").path
        #expect(campaign.output.contains("verify:   pushmedia verify --manifest \(ndjson)"), "\(campaign.output)")
    }
}
