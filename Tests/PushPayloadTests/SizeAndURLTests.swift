import Foundation
import PushMediaModel
import PushPayload
import Testing

@Suite("Size limits")
struct SizeLimitTests {
    /// The expanded-URL length that makes `format`'s payload exactly `target` bytes.
    func urlLength(for target: Int, format: PayloadFormat) throws -> Int {
        let probe = 200
        let bytes = try Fixtures.builder.render(Fixtures.image(expandedURLLength: probe), format: format).byteCount
        return probe + (target - bytes)
    }

    @Test func apnsAtTheLimitPassesAndOneByteOverFails() throws {
        let length = try urlLength(for: 4096, format: .apns)
        let atLimit = try Fixtures.builder.build(Fixtures.image(expandedURLLength: length), format: .apns)
        #expect(atLimit.byteCount == 4096)
        #expect(atLimit.compactString.utf8.count == 4096)

        do {
            _ = try Fixtures.builder.build(Fixtures.image(expandedURLLength: length + 1), format: .apns)
            Issue.record("4097 bytes passed")
        } catch {
            guard case .overLimit(let format, let bytes, let limit, let field, let fieldBytes) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(format == .apns)
            #expect(bytes == 4097)
            #expect(limit == 4096)
            #expect(error.bytesOver == 1)
            #expect(field == "pm.a[0].u")
            // "u":"<url>" is the key (3 bytes with quotes), a colon, and the quoted URL.
            #expect(fieldBytes == 3 + 1 + (length + 1) + 2)
            #expect(error.description.contains("4097 bytes, 1 over the 4096-byte limit"))
            #expect(error.description.contains("pm.a[0].u"))
        }
    }

    @Test("every APNs-bound format but Braze (held per object) is held to 4096 bytes", arguments: [PayloadFormat.apns, .airship])
    func apnsBoundFormats(format: PayloadFormat) throws {
        let length = try urlLength(for: 4096, format: format)
        #expect(try Fixtures.builder.build(Fixtures.image(expandedURLLength: length), format: format).byteCount == 4096)
        #expect(throws: PayloadError.self) {
            try Fixtures.builder.build(Fixtures.image(expandedURLLength: length + 1), format: format)
        }
    }

    @Test func oneSignalIsHeldTo3500() throws {
        let length = try urlLength(for: 3600, format: .onesignal)
        let item = Fixtures.image(expandedURLLength: length)
        // The same item fits APNs but not OneSignal's documented 3500.
        #expect(try Fixtures.builder.build(item, format: .apns).byteCount < 4096)
        #expect(throws: PayloadError.self) { try Fixtures.builder.build(item, format: .onesignal) }
        do {
            _ = try Fixtures.builder.build(item, format: .onesignal)
        } catch {
            #expect(error.bytesOver == 100)
            if case .overLimit(_, _, let limit, let field, _) = error {
                #expect(limit == 3500)
                #expect(field == "ios_attachments.expanded")
            }
        }
    }

    @Test("the FCM messages (fcm, adobe) are held to 4000 bytes", arguments: [PayloadFormat.fcm, .adobe])
    func fcmIsHeldTo4000(format: PayloadFormat) throws {
        // The expanded URL appears once (the iOS image); Android has its own image.
        let length = try urlLength(for: 4000, format: format)
        #expect(try Fixtures.builder.build(Fixtures.image(expandedURLLength: length), format: format).byteCount == 4000)
        #expect(throws: PayloadError.self) {
            try Fixtures.builder.build(Fixtures.image(expandedURLLength: length + 1), format: format)
        }
    }

    @Test func baseURLOverridesManifestURLs() throws {
        let payload = try PayloadBuilder(title: "T", baseURL: "https://other.example/").build(Fixtures.image, format: .adobe)
        #expect(payload.attachments.map(\.url) == ["https://other.example/3f2a9c1d-expanded.jpg"])
    }

    @Test func missingURLWithoutBase() {
        #expect(throws: PayloadError.missingURL(role: .expanded, file: "3f2a9c1d-expanded.jpg")) {
            try PayloadBuilder(title: "T").build(Fixtures.imageWithoutURLs, format: .apns)
        }
    }

    @Test(
        "non-https URLs are refused",
        arguments: [
            ("http://cdn.example.com/a.jpg", "uses http, not https"),
            ("cdn.example.com/a.jpg", "is not absolute"),
            ("ftp://cdn.example.com/a.jpg", "uses ftp, not https"),
            ("https:///a.jpg", "has no host"),
            ("https://cdn.example.com/a b.jpg", "whitespace"),
        ])
    func badManifestURL(url: String, reason: String) {
        var item = Fixtures.image
        let i = item.attachments.firstIndex { $0.role == .expanded }!
        item.attachments[i].url = url
        do {
            _ = try PayloadBuilder(title: "T").build(item, format: .braze)
            Issue.record("\(url) was accepted")
        } catch {
            guard case .invalidURL(let role, let bad, let why) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(role == .expanded)
            #expect(bad == url)
            #expect(why.contains(reason))
        }
    }

    @Test func badBaseURL() {
        #expect(throws: PayloadError.invalidBaseURL("http://cdn.example.com", reason: "uses http, not https")) {
            try PayloadBuilder(title: "T", baseURL: "http://cdn.example.com").build(Fixtures.image, format: .apns)
        }
    }

    @Test func badManifestOptionsAreErrorsNotSilentFixes() {
        var item = Fixtures.image
        let i = item.attachments.firstIndex { $0.role == .expanded }!
        let rect = UnitRect(x: 0.8, y: 0, width: 0.5, height: 1)
        item.attachments[i].options.thumbnailClippingRect = rect
        var single = PayloadBuilder(title: "T")
        single.mode = .single
        #expect(throws: PayloadError.invalidClipRect(role: .expanded, rect)) { try single.build(item, format: .apns) }
        item.attachments[i].typeHint = "public.heic"
        #expect(throws: PayloadError.unsupportedType(role: .expanded, typeHint: "public.heic")) { try single.build(item, format: .apns) }
    }

    @Test func itemLookup() throws {
        let manifest = Manifest(profile: .default, items: [Fixtures.image, Fixtures.video])
        #expect(try PayloadBuilder.item(source: "spring/teaser.mov", in: manifest) == Fixtures.video)
        do {
            _ = try PayloadBuilder.item(source: "nope.jpg", in: manifest)
            Issue.record("found a missing item")
        } catch {
            #expect(error == .itemNotFound(source: "nope.jpg", known: ["spring/hero.jpg", "spring/teaser.mov"]))
            #expect(error.description.contains("spring/hero.jpg"))
        }
    }
}
