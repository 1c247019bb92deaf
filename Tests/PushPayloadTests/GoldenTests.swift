import Foundation
import PushMediaModel
import PushPayload
import Testing

/// Every format's payload, byte for byte, against files in `Golden/`. To accept a deliberate
/// change, run with `PUSHMEDIA_UPDATE_GOLDEN=1`, review the diff, and run again.
@Suite("Golden payloads")
struct GoldenTests {
    typealias Case = (name: String, item: Item, format: PayloadFormat, mode: PayloadMode, platforms: [PayloadPlatform]?)

    static let cases: [Case] =
        PayloadFormat.allCases.flatMap { format in
            PayloadMode.allCases.map { mode in ("\(format.rawValue)-\(mode.rawValue)-image", Fixtures.image, format, mode, nil) }
        } + defaultPlatformCases.map { ($0.name, $0.item, $0.format, $0.mode, nil) } + platformCases

    /// Every platform each format reaches.
    static let platformCases: [Case] = [
        ("fcm-single-image-all", Fixtures.image, .fcm, .single, PayloadFormat.fcm.platforms),
        ("fcm-single-gif-all", Fixtures.gif, .fcm, .single, PayloadFormat.fcm.platforms),
        ("onesignal-single-image-all", Fixtures.image, .onesignal, .single, PayloadFormat.onesignal.platforms),
        ("onesignal-single-video-all", Fixtures.video, .onesignal, .single, PayloadFormat.onesignal.platforms),
        ("braze-single-image-all", Fixtures.image, .braze, .single, PayloadFormat.braze.platforms),
        ("airship-single-image-all", Fixtures.image, .airship, .single, PayloadFormat.airship.platforms),
        ("airship-single-gif-all", Fixtures.gif, .airship, .single, PayloadFormat.airship.platforms),
    ]

    static let defaultPlatformCases: [(name: String, item: Item, format: PayloadFormat, mode: PayloadMode)] = [
        ("apns-multi-video", Fixtures.video, .apns, .multi),
        ("apns-single-video", Fixtures.video, .apns, .single),
        ("braze-single-video", Fixtures.video, .braze, .single),
        ("airship-single-video", Fixtures.video, .airship, .single),
        ("fcm-single-video", Fixtures.video, .fcm, .single),
        ("apns-multi-audio", Fixtures.audio, .apns, .multi),
        ("apns-single-gif", Fixtures.gif, .apns, .single),
        ("apns-multi-failed", Fixtures.failed, .apns, .multi),
        ("airship-multi-failed", Fixtures.failed, .airship, .multi),
        ("onesignal-multi-failed", Fixtures.failed, .onesignal, .multi),
        ("fcm-multi-failed", Fixtures.failed, .fcm, .multi),
    ]

    @Test("payload matches its golden file", arguments: cases.map(\.name))
    func golden(name: String) throws {
        let c = Self.cases.first { $0.name == name }!
        var builder = Fixtures.builder
        builder.mode = c.mode
        builder.platforms = c.platforms
        let payload = try builder.build(c.item, format: c.format)
        let actual = payload.prettyString + "\n"
        let url = Fixtures.goldenURL(name)
        if ProcessInfo.processInfo.environment["PUSHMEDIA_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("wrote \(url.lastPathComponent); run again without PUSHMEDIA_UPDATE_GOLDEN")
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "\(name) differs from its golden file")
        // The golden is valid JSON and the compact form is the same document.
        let fromGolden = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as! NSDictionary
        let fromCompact = try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as! NSDictionary
        #expect(fromGolden == fromCompact)
    }

    @Test("every golden file is used by a case")
    func noStrayGoldens() throws {
        let folder = Fixtures.goldenURL("x").deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(Set(files) == Set(Self.cases.map { "\($0.name).json" }))
    }
}
