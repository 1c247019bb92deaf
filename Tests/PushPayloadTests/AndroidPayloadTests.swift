import Foundation
import PushMediaModel
import PushPayload
import Testing

/// Both platforms in every vendor payload: the Android image under each vendor's documented key
/// (docs/payload.md#android), every URL https, a valid payload with a warning when there is no
/// Android image; and manifests written before the Android image existed still load.
@Suite("Android in the payloads")
struct AndroidPayloadTests {
    static let androidURL = Fixtures.base + "3f2a9c1d-android.jpg"
    static let thumbURL = Fixtures.base + "3f2a9c1d-thumbnail.jpg"

    func json(_ payload: Payload) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as? [String: Any])
    }

    /// Every string in the tree that looks like a URL.
    func urls(_ value: Any) -> [String] {
        switch value {
        case let s as String: s.contains("://") ? [s] : []
        case let a as [Any]: a.flatMap(urls)
        case let d as [String: Any]: d.values.flatMap(urls)
        default: []
        }
    }

    /// Where each vendor's payload carries the Android image (and the large icon, where it has one).
    func androidKeys(_ format: PayloadFormat, _ json: [String: Any]) -> (image: String?, icon: String?)? {
        switch format {
        case .fcm:
            let android = (json["message"] as? [String: Any])?["android"] as? [String: Any]
            return ((android?["notification"] as? [String: Any])?["image"] as? String, nil)
        case .onesignal:
            return (json["big_picture"] as? String, json["large_icon"] as? String)
        case .airship:
            let android = (json["notification"] as? [String: Any])?["android"] as? [String: Any]
            let style = android?["style"] as? [String: Any]
            #expect(style == nil || style?["type"] as? String == "big_picture")
            return (style?["big_picture"] as? String, nil)
        case .braze:
            let messages = json["messages"] as? [String: Any]
            #expect(messages?["apple_push"] != nil, "both platforms")
            let android = messages?["android_push"] as? [String: Any]
            #expect(android?["alert"] is String && android?["title"] is String, "Braze requires alert and title")
            return ((android?["extra"] as? [String: Any])?["appboy_image_url"] as? String, android?["push_icon_image_url"] as? String)
        case .adobe:
            let message = json["message"] as? [String: Any]
            #expect((message?["apns"] as? [String: Any])?["payload"] != nil, "both platforms")
            let data = (message?["android"] as? [String: Any])?["data"] as? [String: Any]
            return (data?["adb_image"] as? String, data?["adb_large_icon"] as? String)
        case .apns:
            return nil
        }
    }

    static let androidFormats: [PayloadFormat] = [.fcm, .onesignal, .airship, .braze, .adobe]

    @Test("valid JSON, both platforms, every URL https, the vendor's Android keys", arguments: androidFormats)
    func bothPlatforms(format: PayloadFormat) throws {
        for mode in PayloadMode.allCases {
            var builder = Fixtures.builder
            builder.mode = mode
            for (name, item) in Fixtures.okItems {
                let payload = try builder.build(item, format: format)
                let json = try json(payload)
                let all = urls(json)
                #expect(!all.isEmpty && all.allSatisfy { $0.hasPrefix("https://") }, "\(name): \(all)")
                // iOS: the attachments the device plans; Android: the item's Android image.
                #expect(!payload.attachments.isEmpty && payload.attachments.allSatisfy { $0.role != .android }, "\(name)")
                let keys = try #require(androidKeys(format, json))
                let expected = try #require(item.attachment(.android)).url
                #expect(keys.image == expected, "\(format) \(name)")
                if format == .onesignal || format == .braze { #expect(keys.icon == item.attachment(.thumbnail)?.url, "\(name)") }
                // Only Adobe's push templates read adb_large_icon, and only with adb_template_type.
                if format == .adobe { #expect(keys.icon == nil, "\(name)") }
                #expect(!payload.warnings.contains { $0.contains("Android") }, "\(name): \(payload.warnings)")
            }
        }
        if format == .airship {
            let json = try json(Fixtures.builder.build(Fixtures.image, format: .airship))
            #expect(json["device_types"] as? [String] == ["ios", "android"])
        }
    }

    @Test(
        "no Android image (a manifest written before it existed): a valid payload without the key, and a warning saying why",
        arguments: androidFormats)
    func withoutAndroidImage(format: PayloadFormat) throws {
        let payload = try Fixtures.builder.build(Fixtures.imageWithoutAndroid, format: format)
        let json = try json(payload)
        #expect(androidKeys(format, json)?.image == nil)
        #expect(!payload.attachments.isEmpty, "iOS still gets its attachments")
        #expect(payload.warnings.contains { $0.contains("no Android image") }, "\(payload.warnings)")
    }

    @Test("over a vendor's limit: left out with a warning naming the limit; the other vendors keep it")
    func overAVendorsLimit() throws {
        var item = Fixtures.image
        let i = item.attachments.firstIndex { $0.role == .android }!
        item.attachments[i].bytes = 1_500_000
        for format in [PayloadFormat.fcm, .onesignal, .adobe] {
            let payload = try Fixtures.builder.build(item, format: format)
            #expect(androidKeys(format, try json(payload))?.image == nil, "\(format)")
            let limit = format == .adobe ? 1_000_000 : 1_048_576
            #expect(payload.warnings.contains { $0.contains("1500000 bytes, over \(format.rawValue)'s \(limit)") }, "\(payload.warnings)")
        }
        // Airship takes images up to 2 MB, Braze up to 5 MB.
        for format in [PayloadFormat.airship, .braze] {
            let payload = try Fixtures.builder.build(item, format: format)
            #expect(androidKeys(format, try json(payload))?.image == Self.androidURL, "\(format)")
        }
    }

    @Test("the iOS payload never carries the Android image")
    func apnsHasNoAndroid() throws {
        for mode in PayloadMode.allCases {
            var builder = Fixtures.builder
            builder.mode = mode
            let payload = try builder.build(Fixtures.image, format: .apns)
            #expect(!payload.compactString.contains("-android."))
        }
    }

    @Test("androidImage(of:) is the android attachment; a manifest without one has none")
    func androidImageOf() {
        #expect(PayloadBuilder.androidImage(of: Fixtures.image)?.role == .android)
        #expect(PayloadBuilder.androidImage(of: Fixtures.imageWithoutAndroid) == nil)
        #expect(PayloadLimits.androidImageBytes == 1_048_576)
    }

    @Test("a manifest written before the Android image (no android role, no android profile section) still loads")
    func oldManifestLoads() throws {
        let manifest = Manifest(profile: .default, items: [Fixtures.imageWithoutAndroid, Fixtures.video])
        var tree = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(manifest)) as? [String: Any])
        var profile = try #require(tree["profile"] as? [String: Any])
        #expect(profile["android"] != nil)
        profile["android"] = nil
        tree["profile"] = profile
        // The video as old manifests have it: no android attachment, no subjectInCentreSquare.
        var items = try #require(tree["items"] as? [[String: Any]])
        items[1]["attachments"] = (items[1]["attachments"] as? [[String: Any]])?.filter { $0["role"] as? String != "android" }
        tree["items"] = items
        let old = try JSONSerialization.data(withJSONObject: tree)
        #expect(!String(decoding: old, as: UTF8.self).contains("android"))
        let loaded = try Manifest.decode(from: old)
        #expect(loaded.profile == .default, "the android section defaults")
        #expect(loaded.items.count == 2 && loaded.items.allSatisfy { $0.attachment(.android) == nil })
        #expect(loaded.items[0] == Fixtures.imageWithoutAndroid)
    }
}
