import Foundation
import PushMediaModel
import PushPayload

/// Manifest items as the pipeline writes them, with fixed values so payloads are stable.
enum Fixtures {
    static let base = "https://cdn.example.com/push/"

    static func attachment(
        _ role: Attachment.Role, _ prefix: String, _ type: AttachmentType, bytes: Int,
        size: (Int, Int)? = nil, options: Attachment.Options = .init(thumbnailHidden: false), withURL: Bool = true
    ) -> Attachment {
        let file = "\(prefix)-\(role.rawValue).\(type.fileExtensions[0])"
        return Attachment(
            identifier: role.rawValue, role: role, file: file, url: withURL ? base + file : nil,
            typeHint: type.typeHint, fileExtension: type.fileExtensions[0], mimeType: type.mimeType,
            bytes: bytes, sha256: String(repeating: prefix, count: 8), width: size?.0, height: size?.1,
            options: options)
    }

    /// A still image: square thumbnail + 2:1 expanded with a clipping rect (x needs rounding).
    static let image = Item(
        source: "spring/hero.jpg", sourceSHA256: String(repeating: "a", count: 64), sourceBytes: 2_400_000,
        kind: .image, status: .ok,
        attachments: [
            attachment(.thumbnail, "3f2a9c1d", .jpeg, bytes: 24_512, size: (300, 300)),
            attachment(
                .expanded, "3f2a9c1d", .jpeg, bytes: 98_304, size: (1200, 600),
                options: .init(
                    thumbnailHidden: false,
                    thumbnailClippingRect: UnitRect(x: 0.316666666, y: 0, width: 0.5, height: 1))),
        ])

    /// A movie: poster thumbnail and expanded image, plus the MP4 with a thumbnail time.
    static let video = Item(
        source: "spring/teaser.mov", kind: .video, status: .ok,
        attachments: [
            attachment(.thumbnail, "7b1e04aa", .jpeg, bytes: 20_000, size: (300, 300)),
            attachment(
                .expanded, "7b1e04aa", .jpeg, bytes: 90_000, size: (1200, 600),
                options: .init(thumbnailHidden: false, thumbnailClippingRect: UnitRect(x: 0.25, y: 0, width: 0.5, height: 1))),
            attachment(
                .media, "7b1e04aa", .mp4, bytes: 4_200_000, size: (1280, 720),
                options: .init(thumbnailHidden: false, thumbnailTime: 2.5)),
        ])

    /// Audio with cover art.
    static let audio = Item(
        source: "jingles/chime.wav", kind: .audio, status: .ok,
        attachments: [
            attachment(.thumbnail, "c0ffee11", .jpeg, bytes: 15_000, size: (300, 300)),
            attachment(.expanded, "c0ffee11", .jpeg, bytes: 60_000, size: (1200, 600)),
            attachment(.media, "c0ffee11", .m4a, bytes: 800_000),
        ])

    /// An animated GIF: a still JPEG thumbnail, the GIF expanded with a frame number as time.
    static let gif = Item(
        source: "fun/dance.gif", kind: .animatedImage, status: .ok,
        attachments: [
            attachment(.thumbnail, "9d9d0001", .jpeg, bytes: 18_000, size: (300, 300)),
            attachment(
                .expanded, "9d9d0001", .gif, bytes: 900_000, size: (600, 300),
                options: .init(
                    thumbnailHidden: false, thumbnailClippingRect: UnitRect(x: 0.25, y: 0, width: 0.5, height: 1),
                    thumbnailTime: 12)),
        ])

    /// A failed item.
    static let failed = Item.failed(
        source: "broken/file.jpg", kind: .image, error: ItemError(.corruptInput, "JPEG data ends early"))

    /// Every ok fixture, for round trips.
    static let okItems: [(String, Item)] = [("image", image), ("video", video), ("audio", audio), ("gif", gif)]

    /// The image item with its URLs removed (needs `--base-url`).
    static var imageWithoutURLs: Item {
        var item = image
        item.attachments = item.attachments.map {
            var a = $0
            a.url = nil
            return a
        }
        return item
    }

    /// The image with the expanded URL made `length` characters long.
    static func image(expandedURLLength length: Int) -> Item {
        var item = image
        let i = item.attachments.firstIndex { $0.role == .expanded }!
        let head = "https://cdn.example.com/"
        let tail = "-expanded.jpg"
        item.attachments[i].url = head + String(repeating: "x", count: max(0, length - head.count - tail.count)) + tail
        return item
    }

    static let builder = PayloadBuilder(title: "Spring sale", body: "Everything 30% off until Sunday", mode: .multi)

    // MARK: - Device side

    /// The `userInfo` the device receives for a payload: APNs-shaped payloads as they are; API
    /// bodies turned into what each vendor delivers (Airship's `com.urbanairship.media_attachment`,
    /// OneSignal's `att`, FCM's top-level `fcm_options`).
    static func deviceUserInfo(_ payload: Payload) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(payload.compactString.utf8)) as! [String: Any]
        let aps: [String: Any] = ["alert": ["title": "t", "body": "b"], "mutable-content": 1]
        switch payload.format {
        case .apns, .braze, .adobe:
            return json
        case .airship:
            var userInfo: [String: Any] = ["aps": aps, "_": "a323385b-010a-401c-93ae-936cb58dff04"]
            let ios = (json["notification"] as? [String: Any])?["ios"] as? [String: Any]
            if let media = ios?["media_attachment"] { userInfo["com.urbanairship.media_attachment"] = media }
            return userInfo
        case .onesignal:
            var userInfo: [String: Any] = ["aps": aps, "custom": ["i": "0b1f5e2c-1111-2222-3333-444455556666"]]
            if let att = json["ios_attachments"] { userInfo["att"] = att }
            return userInfo
        case .fcm:
            let apns = (json["message"] as? [String: Any])?["apns"] as? [String: Any]
            var userInfo = (apns?["payload"] as? [String: Any]) ?? ["aps": aps]
            if let options = apns?["fcm_options"] { userInfo["fcm_options"] = options }
            userInfo["gcm.message_id"] = "1700000000000000"
            return userInfo
        }
    }

    /// `Tests/PushPayloadTests/Golden/<name>.json`.
    static func goldenURL(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name).json")
    }
}
