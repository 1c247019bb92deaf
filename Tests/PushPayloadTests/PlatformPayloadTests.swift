import Foundation
import PushMediaModel
import PushPayload
import Testing

/// `--platforms`: web push, Huawei and Amazon under each vendor's documented keys
/// (docs/payload.md#platforms), each naming a still JPEG or PNG of the run; platforms a format
/// cannot reach refused; each platform's part left out when it is not asked for.
@Suite("Platforms in the payloads")
struct PlatformPayloadTests {
    func json(_ payload: Payload) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as? [String: Any])
    }

    func builder(_ platforms: [PayloadPlatform]?, mode: PayloadMode = .multi) -> PayloadBuilder {
        var builder = Fixtures.builder
        builder.platforms = platforms
        builder.mode = mode
        return builder
    }

    /// What a still key must name: the Android image (2:1) or the square thumbnail.
    enum Still { case image, icon }

    /// Every web, Huawei and Amazon key of `format`'s payload, with the still it must name (nil
    /// values: the key is absent).
    func stillKeys(_ format: PayloadFormat, _ json: [String: Any], _ platform: PayloadPlatform) -> [(key: String, url: String?, still: Still)] {
        func object(_ value: Any?, _ path: String...) -> [String: Any]? {
            path.reduce(value as? [String: Any]) { $0?[$1] as? [String: Any] }
        }
        switch (format, platform) {
        case (.fcm, .web):
            let web = object(json, "message", "webpush", "notification")
            return [("webpush.notification.image", web?["image"] as? String, .image), ("webpush.notification.icon", web?["icon"] as? String, .icon)]
        case (.onesignal, .web):
            return [
                ("chrome_web_image", json["chrome_web_image"] as? String, .image), ("chrome_web_icon", json["chrome_web_icon"] as? String, .icon),
                ("firefox_icon", json["firefox_icon"] as? String, .icon),
            ]
        case (.onesignal, .huawei):
            return [
                ("huawei_big_picture", json["huawei_big_picture"] as? String, .image),
                ("huawei_large_icon", json["huawei_large_icon"] as? String, .icon),
            ]
        case (.onesignal, .amazon):
            return [("adm_big_picture", json["adm_big_picture"] as? String, .image), ("adm_large_icon", json["adm_large_icon"] as? String, .icon)]
        case (.braze, .web):
            let web = object(json, "messages", "web_push")
            return [
                ("web_push.large_image_url", web?["large_image_url"] as? String, .image), ("web_push.image_url", web?["image_url"] as? String, .icon),
            ]
        case (.airship, .web):
            let web = object(json, "notification", "web")
            return [
                ("web.image.url", object(web, "image")?["url"] as? String, .image), ("web.icon.url", object(web, "icon")?["url"] as? String, .icon),
            ]
        case (.airship, .amazon):
            let style = object(json, "notification", "amazon", "style")
            #expect(style == nil || style?["type"] as? String == "big_picture")
            return [("amazon.style.big_picture", style?["big_picture"] as? String, .image)]
        default:
            return []
        }
    }

    static let stillPlatforms: [(PayloadFormat, PayloadPlatform)] = [
        (.fcm, .web), (.onesignal, .web), (.onesignal, .huawei), (.onesignal, .amazon), (.braze, .web), (.airship, .web), (.airship, .amazon),
    ]

    @Test(
        "every web, Huawei and Amazon key names a still JPEG/PNG of the run: the 2:1 image within 1800x900, the 192-320 px square icon",
        arguments: stillPlatforms.map { "\($0.0.rawValue)/\($0.1.rawValue)" })
    func stillKeysNameStills(pair: String) throws {
        let (format, platform) = Self.stillPlatforms.first { "\($0.0.rawValue)/\($0.1.rawValue)" == pair }!
        for mode in PayloadMode.allCases {
            for (name, item) in Fixtures.okItems {
                let payload = try builder([.ios, .android, platform], mode: mode).build(item, format: format)
                let json = try json(payload)
                let keys = stillKeys(format, json, platform)
                #expect(!keys.isEmpty)
                for key in keys {
                    let attachment = try #require(item.attachment(key.still == .image ? .android : .thumbnail))
                    #expect(key.url == attachment.url, "\(format) \(name) \(key.key)")
                    #expect([AttachmentType.jpeg.typeHint, AttachmentType.png.typeHint].contains(attachment.typeHint), "\(name) \(key.key)")
                    let (width, height) = (try #require(attachment.width), try #require(attachment.height))
                    switch key.still {
                    case .image: #expect(width == 2 * height && width <= 1800 && height <= 900, "\(name): \(width)x\(height)")
                    case .icon: #expect(width == height && (192...320).contains(width), "\(name): \(width)x\(height)")
                    }
                    #expect(key.url?.hasPrefix("https://") == true)
                }
                #expect(!payload.warnings.contains { $0.contains(platform.rawValue) }, "\(name): \(payload.warnings)")
                // The iOS and Android parts are those of the default platforms.
                #expect(payload.attachments == (try builder(nil, mode: mode).build(item, format: format)).attachments)
            }
        }
    }

    @Test("a GIF is never a web, Huawei or Amazon image or icon: the key is left out with a warning", arguments: stillPlatforms.map(\.1.rawValue))
    func noGIFs(platformName: String) throws {
        var item = Fixtures.gif
        for role in [Attachment.Role.android, .thumbnail] {
            let i = item.attachments.firstIndex { $0.role == role }!
            item.attachments[i].typeHint = AttachmentType.gif.typeHint
            item.attachments[i].fileExtension = "gif"
        }
        let platform = PayloadPlatform(rawValue: platformName)!
        for (format, _) in Self.stillPlatforms.filter({ $0.1 == platform }) {
            let payload = try builder([.ios, platform]).build(item, format: format)
            let keys = stillKeys(format, try json(payload), platform)
            #expect(keys.allSatisfy { $0.url == nil }, "\(format): \(keys.map(\.key))")
            #expect(!payload.compactString.contains("-android.jpg"))
            #expect(payload.warnings.contains { $0.contains("not a still JPEG or PNG") && $0.contains(platform.rawValue) }, "\(payload.warnings)")
        }
    }

    @Test("an item without stills (audio without cover art): no still key, a warning saying why")
    func noStills() throws {
        var item = Fixtures.audio
        item.attachments.removeAll { $0.role != .media }
        let payload = try builder([.ios, .web]).build(item, format: .fcm)
        let message = try #require(try json(payload)["message"] as? [String: Any])
        #expect(message["webpush"] == nil)
        #expect(payload.warnings.contains { $0.contains("no Android image (2:1 still) to send to web") }, "\(payload.warnings)")
    }

    @Test("a platform a format cannot reach is refused, naming the format")
    func unreachable() {
        for format in PayloadFormat.allCases {
            for platform in PayloadPlatform.allCases where !format.platforms.contains(platform) {
                do {
                    _ = try builder([.ios, platform]).build(Fixtures.image, format: format)
                    Issue.record("\(format) took \(platform)")
                } catch {
                    #expect(error == .unreachablePlatform(format: format, platform: platform))
                    #expect(error.description.hasPrefix("\(format.rawValue) cannot address \(platform.rawValue)"))
                }
            }
        }
        #expect(PayloadFormat.apns.platforms == [.ios])
        #expect(!PayloadFormat.adobe.platforms.contains(.web))
    }

    @Test("no platforms asked for: iOS and Android where the format reaches them, the same bytes as asking for them")
    func defaults() throws {
        for format in PayloadFormat.allCases {
            let asked = try builder(format == .apns ? [.ios] : [.android, .ios]).build(Fixtures.image, format: format)
            let defaulted = try builder(nil).build(Fixtures.image, format: format)
            #expect(asked.compactString == defaulted.compactString, "\(format)")
            #expect(defaulted.platforms == (format == .apns ? [.ios] : [.ios, .android]))
        }
    }

    @Test("each platform's part is left out when it is not asked for")
    func partsFollowPlatforms() throws {
        let fcm = try builder([.web]).build(Fixtures.image, format: .fcm)
        let message = try #require(try json(fcm)["message"] as? [String: Any])
        #expect(Set(message.keys) == ["notification", "webpush"])
        #expect(fcm.attachments.isEmpty, "nothing for iOS to download")

        let braze = try json(builder([.web]).build(Fixtures.image, format: .braze))
        let web = try #require((braze["messages"] as? [String: Any])?["web_push"] as? [String: Any])
        #expect(Set((braze["messages"] as? [String: Any])?.keys.map { $0 } ?? []) == ["web_push"])
        // Braze requires alert and title.
        #expect(web["alert"] as? String == "Everything 30% off until Sunday" && web["title"] as? String == "Spring sale")

        let airship = try json(builder([.ios, .web, .amazon]).build(Fixtures.image, format: .airship))
        #expect(airship["device_types"] as? [String] == ["ios", "web", "amazon"])
        let notification = try #require(airship["notification"] as? [String: Any])
        #expect(Set(notification.keys) == ["alert", "ios", "web", "amazon"])
        #expect((notification["web"] as? [String: Any])?["title"] as? String == "Spring sale")

        let oneSignal = try json(builder([.huawei]).build(Fixtures.image, format: .onesignal))
        #expect(Set(oneSignal.keys) == ["contents", "headings", "huawei_big_picture", "huawei_large_icon"])

        let adobe = try json(builder([.android]).build(Fixtures.image, format: .adobe))
        #expect(Set((adobe["message"] as? [String: Any])?.keys.map { $0 } ?? []) == ["android"])
    }

    /// The FCM HTTP v1 `Message` fields (discovery document `fcm/v1`, schemas `Message`,
    /// `Notification`, `ApnsConfig`, `ApnsFcmOptions`, `AndroidConfig`, `WebpushConfig`); the
    /// `webpush.notification` object takes the Web Notification API's options.
    static let fcmFields: [String: Set<String>] = [
        "message": ["name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition"],
        "message.notification": ["title", "body", "image"],
        "message.apns": ["headers", "payload", "fcm_options", "live_activity_token"],
        "message.apns.fcm_options": ["analytics_label", "image"],
        "message.android": ["collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options", "direct_boot_ok"],
        "message.webpush": ["headers", "data", "notification", "fcm_options"],
        "message.webpush.notification": [
            "title", "body", "icon", "image", "badge", "lang", "tag", "dir", "renotify", "requireInteraction", "silent", "timestamp",
            "vibrate", "actions", "data",
        ],
    ]

    /// The create-notification fields PushMedia sends, as OneSignal's generated client model
    /// (`OneSignal/onesignal-node-api` `models/NotificationAllOf.ts`) names them.
    static let oneSignalFields: Set<String> = [
        "contents", "headings", "ios_attachments", "mutable_content", "big_picture", "large_icon", "huawei_big_picture", "huawei_large_icon",
        "adm_big_picture", "adm_large_icon", "chrome_web_image", "chrome_web_icon", "firefox_icon",
    ]

    @Test("every FCM and OneSignal body with every platform uses only fields of the vendor's schema")
    func schemaFields() throws {
        let all = builder(nil)
        for mode in PayloadMode.allCases {
            for (name, item) in Fixtures.okItems + [("failed", Fixtures.failed)] {
                var b = all
                b.mode = mode
                b.platforms = PayloadFormat.fcm.platforms
                let fcm = try json(b.build(item, format: .fcm))
                #expect(Set(fcm.keys) == ["message"])
                for (path, allowed) in Self.fcmFields {
                    let object = path.split(separator: ".").reduce(fcm as Any?) { ($0 as? [String: Any])?[String($1)] }
                    let keys = Set((object as? [String: Any])?.keys.map { $0 } ?? [])
                    #expect(keys.isSubset(of: allowed), "\(name) \(path): \(keys.subtracting(allowed))")
                }
                b.platforms = PayloadFormat.onesignal.platforms
                let oneSignal = try json(b.build(item, format: .onesignal))
                #expect(Set(oneSignal.keys).isSubset(of: Self.oneSignalFields), "\(name): \(Set(oneSignal.keys).subtracting(Self.oneSignalFields))")
            }
        }
    }
}

/// Braze's limits as Braze states them, per message object; Airship's and OneSignal's default
/// mode; Adobe's keys.
@Suite("Vendor-true limits and defaults")
struct VendorRuleTests {
    func applePushBytes(_ builder: PayloadBuilder) throws -> Int {
        let payload = try builder.render(Fixtures.image, format: .braze)
        return try #require(payload.objectLimits.first { $0.object == "apple_push" }).bytes
    }

    @Test("Braze refuses a 1,950-byte apple_push alert, naming the object and the bytes over")
    func brazeRefusesALongAppleAlert() throws {
        let builder = PayloadBuilder(body: String(repeating: "a", count: 1950))
        do {
            _ = try builder.build(Fixtures.image, format: .braze)
            Issue.record("a 1,950-byte alert passed")
        } catch {
            guard case .objectOverLimit(let format, let object, let bytes, let limit, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(format == .braze && object == "apple_push" && limit == 1912)
            #expect(bytes > 1950)
            #expect(error.bytesOver == bytes - 1912)
            #expect(error.description.contains("braze apple_push is \(bytes) bytes, \(bytes - 1912) over its 1912-byte limit"))
        }
    }

    @Test("Braze accepts an 1,850-byte apple_push, and an apple_push of 1,912 bytes but not 1,913")
    func brazeAcceptsAppleUpTo1912() throws {
        func builder(bytes target: Int) throws -> PayloadBuilder {
            let probe = PayloadBuilder(title: "Spring sale", body: String(repeating: "b", count: 100))
            let length = 100 + target - (try applePushBytes(probe))
            return PayloadBuilder(title: "Spring sale", body: String(repeating: "b", count: length))
        }
        for target in [1850, 1912] {
            let payload = try builder(bytes: target).build(Fixtures.image, format: .braze)
            #expect(payload.json["messages"]?["apple_push"]?.compactByteCount == target)
            #expect(
                payload.objectLimits.first == ObjectLimit(object: "apple_push", bytes: target, limit: 1912, source: payload.objectLimits[0].source))
        }
        #expect(throws: PayloadError.self) { try builder(bytes: 1913).build(Fixtures.image, format: .braze) }
        let over = try builder(bytes: 1913)
        do {
            _ = try over.build(Fixtures.image, format: .braze)
        } catch {
            #expect(error.bytesOver == 1)
        }
    }

    @Test("Braze holds android_push to 3,807 bytes and web_push likewise; not the whole body to 4096")
    func brazeAndroidAndWeb() throws {
        func bytes(_ object: String, _ builder: PayloadBuilder) throws -> Int {
            try #require(try builder.render(Fixtures.image, format: .braze).objectLimits.first { $0.object == object }).bytes
        }
        for (object, platform) in [("android_push", PayloadPlatform.android), ("web_push", .web)] {
            let probe = PayloadBuilder(title: "T", body: String(repeating: "c", count: 100), platforms: [platform])
            let length = 100 + 3807 - (try bytes(object, probe))
            let atLimit = PayloadBuilder(title: "T", body: String(repeating: "c", count: length), platforms: [platform])
            #expect(try bytes(object, atLimit) == 3807)
            _ = try atLimit.build(Fixtures.image, format: .braze)
            let over = PayloadBuilder(title: "T", body: String(repeating: "c", count: length + 1), platforms: [platform])
            #expect(
                throws: PayloadError.objectOverLimit(
                    format: .braze, object: object, bytes: 3808, limit: 3807, source: PayloadFormat.braze.limitSource)
            ) {
                try over.build(Fixtures.image, format: .braze)
            }
        }
        // apple_push and android_push together may pass 3,807: each is counted on its own.
        let both = PayloadBuilder(title: "T", body: String(repeating: "d", count: 1700), platforms: [.ios, .android, .web])
        let payload = try both.build(Fixtures.image, format: .braze)
        #expect(payload.byteCount > 4096 && !payload.limitsWholePayload)
        #expect(payload.objectLimits.map(\.object) == ["apple_push", "android_push alert + extra", "android_push", "web_push"])
        #expect(payload.sizeSummary.hasPrefix("braze payload: apple_push "))
    }

    @Test("Braze's images: at most 5 MB, for Android and web alike")
    func brazeImageLimit() throws {
        var item = Fixtures.image
        let i = item.attachments.firstIndex { $0.role == .android }!
        item.attachments[i].bytes = 5_000_001
        let payload = try PayloadBuilder(title: "T", platforms: [.android, .web]).build(item, format: .braze)
        #expect(!payload.compactString.contains("-android.jpg"))
        #expect(payload.warnings.filter { $0.contains("5000001 bytes, over braze's 5000000") }.count == 2, "\(payload.warnings)")
        item.attachments[i].bytes = 5_000_000
        #expect(try PayloadBuilder(title: "T", platforms: [.android, .web]).build(item, format: .braze).compactString.contains("-android.jpg"))
    }

    @Test("Airship and OneSignal default to one attachment; multi is opt-in and says why")
    func defaultModes() throws {
        #expect(PayloadFormat.airship.defaultMode == .single && PayloadFormat.onesignal.defaultMode == .single)
        #expect(PayloadFormat.apns.defaultMode == .multi)
        for format in [PayloadFormat.airship, .onesignal] {
            let single = try PayloadBuilder(title: "T", mode: format.defaultMode).build(Fixtures.image, format: format)
            #expect(single.attachments.count == 1 && single.attachments[0].role == .expanded)
            #expect(!single.warnings.contains { $0.contains("--mode multi") })
            let multi = try PayloadBuilder(title: "T", mode: .multi).build(Fixtures.image, format: format)
            #expect(multi.attachments.count == 2)
            let warning = try #require(multi.warnings.first { $0.contains("--mode multi") })
            #expect(warning.contains(format == .airship ? "order their downloads finish" : "unordered dictionary"), "\(warning)")
        }
        #expect(
            !(try PayloadBuilder(title: "T", mode: .multi).build(Fixtures.image, format: .apns)).warnings.contains { $0.contains("--mode multi") })
    }

    @Test("Adobe: no adb_large_icon; the animated GIF as adb_image only when asked for, only for adobe")
    func adobe() throws {
        for mode in PayloadMode.allCases {
            for (name, item) in Fixtures.okItems {
                let payload = try PayloadBuilder(title: "T", mode: mode).build(item, format: .adobe)
                #expect(!payload.compactString.contains("adb_large_icon"), "\(name)")
                #expect(!payload.compactString.contains("adb_template_type"), "\(name)")
            }
        }
        func adbImage(_ payload: Payload) throws -> String? {
            let json = try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as? [String: Any]
            return (((json?["message"] as? [String: Any])?["android"] as? [String: Any])?["data"] as? [String: Any])?["adb_image"] as? String
        }
        let still = try PayloadBuilder(title: "T").build(Fixtures.gif, format: .adobe)
        #expect(try adbImage(still) == Fixtures.base + "9d9d0001-android.jpg")
        let animated = try PayloadBuilder(title: "T", animatedAndroidImage: true).build(Fixtures.gif, format: .adobe)
        #expect(try adbImage(animated) == Fixtures.base + "9d9d0001-expanded.gif")
        #expect(animated.warnings.contains { $0.contains("Android 14") }, "\(animated.warnings)")
        // A still item has no GIF: the still is sent, and the warning says so.
        let photo = try PayloadBuilder(title: "T", animatedAndroidImage: true).build(Fixtures.image, format: .adobe)
        #expect(try adbImage(photo) == Fixtures.base + "3f2a9c1d-android.jpg")
        #expect(photo.warnings.contains { $0.contains("no animated GIF") })
        #expect(throws: PayloadError.optionNotForFormat(option: "the animated Android image", format: .fcm, only: .adobe)) {
            try PayloadBuilder(title: "T", animatedAndroidImage: true).build(Fixtures.gif, format: .fcm)
        }
    }

    @Test("platform lists: comma-separated, repeats dropped, an unknown name refused")
    func platformList() throws {
        #expect(try PayloadPlatform.list("ios, web,ios").get() == [.ios, .web])
        #expect(throws: PayloadPlatform.UnknownPlatform(name: "windows")) { try PayloadPlatform.list("ios,windows").get() }
        #expect(throws: PayloadPlatform.UnknownPlatform(name: "")) { try PayloadPlatform.list("").get() }
    }
}
