import Foundation
import PushMediaModel

/// The alert text: at least one of title and body.
struct AlertText: Sendable {
    var title: String?
    var body: String?

    init(title: String?, body: String?) throws(PayloadError) {
        self.title = title.flatMap { $0.isEmpty ? nil : $0 }
        self.body = body.flatMap { $0.isEmpty ? nil : $0 }
        if self.title == nil && self.body == nil { throw .missingAlertText }
    }

    /// `{"title": …, "body": …}` with the parts that are set.
    var object: [String: PayloadJSON] {
        var alert: [String: PayloadJSON] = [:]
        if let title { alert["title"] = .string(title) }
        if let body { alert["body"] = .string(body) }
        return alert
    }
}

/// What every format builder gets.
struct FormatContext: Sendable {
    var item: Item
    var mode: PayloadMode
    /// What the payload addresses; each format leaves out the parts of the others.
    var platforms: Set<PayloadPlatform>
    var text: AlertText
    /// From ``PayloadBuilder/selectAttachments(for:)``; empty means text-only.
    var selected: [PayloadAttachment]
    /// The Android image (the vendors' big picture, FCM's `android.notification.image`).
    var androidImage: PayloadAttachment?
    /// The square thumbnail, for vendors whose Android SDK shows a separate large icon
    /// collapsed (OneSignal's `large_icon`, Braze's `push_icon_image_url`), and the web icon.
    var largeIcon: PayloadAttachment?
    /// The expanded GIF of an animated item, when the builder was asked for it (`adobe` only).
    var animatedAndroidImage: PayloadAttachment?
    /// Whether the builder was asked for the animated Android image.
    var askedForAnimation = false
    var warnings: [String]

    func has(_ platform: PayloadPlatform) -> Bool { platforms.contains(platform) }

    /// `image` (the Android image) or `icon` (the square thumbnail) for `platform`, when it is a
    /// still JPEG or PNG within `limit` bytes; else nil, with a warning naming `key`. Web push
    /// gets no GIF: Chrome shows its first frame only, and the vendors document still images.
    func still(
        _ which: StillRole, for platform: PayloadPlatform, _ format: PayloadFormat, limit: Int, key: String,
        warnings: inout [String]
    ) -> PayloadAttachment? {
        guard item.status == .ok else { return nil }
        let what = which == .image ? "Android image (2:1 still)" : "square thumbnail"
        guard let still = which == .image ? androidImage : largeIcon else {
            warnings.append("item \(item.source) has no \(what) to send to \(platform.rawValue): \(key) is not set")
            return nil
        }
        guard still.isStillImage else {
            warnings.append(
                "the \(what) of \(item.source) is \(still.typeHint), not a still JPEG or PNG: \(key) is not set for \(platform.rawValue)")
            return nil
        }
        guard still.bytes <= limit else {
            warnings.append(
                "the \(what) of \(item.source) is \(still.bytes) bytes, over \(format.rawValue)'s \(limit): \(key) is not set")
            return nil
        }
        if platform == .web, let warning = still.webSizeWarning(which) { warnings.append(warning) }
        return still
    }

    enum StillRole { case image, icon }

    /// The Android image when the item has one within `limit` bytes; else nil, with a warning
    /// naming `key` and why it is not set.
    func android(_ format: PayloadFormat, limit: Int, key: String, warnings: inout [String]) -> PayloadAttachment? {
        guard item.status == .ok else { return nil }
        guard let image = androidImage else {
            warnings.append(
                "item \(item.source) has no Android image (a movie without a poster frame, audio without cover art, or a manifest written before PushMedia made one): \(key) is not set"
            )
            return nil
        }
        guard image.bytes <= limit else {
            warnings.append(
                "the Android image of \(item.source) is \(image.bytes) bytes, over \(format.rawValue)'s \(limit): \(key) is not set; lower android.budget in the profile"
            )
            return nil
        }
        if let warning = image.extensionWarning { warnings.append(warning) }
        return image
    }

    /// The square thumbnail as an Android large icon, when the item has one within `limit` bytes.
    func androidLargeIcon(limit: Int) -> PayloadAttachment? {
        guard let icon = largeIcon, icon.bytes <= limit else { return nil }
        return icon
    }

    /// The first selected attachment: what one-URL formats send.
    var primary: PayloadAttachment? { selected.first.map { $0.withoutOptions } }

    /// The `aps` dictionary: the alert, and `mutable-content: 1` when there is media to attach.
    var aps: PayloadJSON {
        var aps: [String: PayloadJSON] = ["alert": .object(text.object)]
        if !selected.isEmpty { aps["mutable-content"] = .int(1) }
        return .object(aps)
    }

    func payload(_ format: PayloadFormat, _ json: [String: PayloadJSON], carries: [PayloadAttachment], warnings extra: [String] = []) -> Payload {
        Payload(format: format, mode: mode, json: .object(json), attachments: carries, warnings: warnings + extra)
    }

    /// The alert a vendor's Android or web object needs as one string: the body, else the title.
    var alertString: String { text.body ?? text.title! }
    /// The title such an object needs: the title, else the body.
    var titleString: String { text.title ?? text.body! }
}

extension PayloadAttachment {
    /// True when the URL's path ends with `.fileExtension`: device code that infers the type
    /// from the URL (Adobe, FCM, OneSignal, Airship samples) needs it.
    var urlShowsExtension: Bool {
        guard let path = URLComponents(string: url)?.path else { return false }
        return path.lowercased().hasSuffix("." + fileExtension.lowercased())
    }

    /// Chromium keeps a notification image within 1800×900 and an icon within 320×320, scaling
    /// larger ones down; what does not fit its box is said, never changed.
    func webSizeWarning(_ which: FormatContext.StillRole) -> String? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        switch which {
        case .image:
            if width > 1800 || height > 900 || abs(width - 2 * height) > max(2, height / 50) {
                return "the web image (\(role.rawValue), \(width)×\(height)) is not a 2:1 image within 1800×900: Chrome scales or crops it"
            }
        case .icon:
            if width != height || width > 320 {
                return "the web icon (\(role.rawValue), \(width)×\(height)) is not a square of at most 320 px: Chrome scales it"
            }
        }
        return nil
    }

    var extensionWarning: String? {
        urlShowsExtension
            ? nil
            : "the \(role.rawValue) URL does not end with .\(fileExtension): device code that infers the type from the URL may not attach it"
    }
}
