import Foundation
import PushMediaModel

/// One attachment as a payload sends it: where to download it, its type, and the
/// `UNNotificationAttachment` options the device will apply.
public struct PayloadAttachment: Sendable, Equatable {
    /// Which manifest attachment this is.
    public var role: Attachment.Role
    /// Absolute https URL.
    public var url: String
    /// The UTI (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var typeHint: String
    /// Extension without the dot, e.g. `jpg`.
    public var fileExtension: String
    /// Size of the file, from the manifest.
    public var bytes: Int
    /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`.
    public var thumbnailHidden: Bool
    /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`, rounded to 4 decimals.
    public var clippingRect: UnitRect?
    /// `UNNotificationAttachmentOptionsThumbnailTimeKey`: seconds (movies) or a frame (GIFs).
    public var thumbnailTime: Double?
    /// Pixel width and height, from the manifest (nil for audio and old manifests).
    public var width: Int?
    public var height: Int?

    public init(
        role: Attachment.Role, url: String, typeHint: String, fileExtension: String, bytes: Int,
        thumbnailHidden: Bool = false, clippingRect: UnitRect? = nil, thumbnailTime: Double? = nil,
        width: Int? = nil, height: Int? = nil
    ) {
        self.role = role
        self.url = url
        self.typeHint = typeHint
        self.fileExtension = fileExtension
        self.bytes = bytes
        self.thumbnailHidden = thumbnailHidden
        self.clippingRect = clippingRect
        self.thumbnailTime = thumbnailTime
        self.width = width
        self.height = height
    }

    /// True for a still JPEG or PNG: what web push, Huawei and Amazon keys may name (a browser
    /// shows only a GIF's first frame, and the vendors document still images).
    public var isStillImage: Bool { typeHint == AttachmentType.jpeg.typeHint || typeHint == AttachmentType.png.typeHint }

    /// The same attachment with no options (for formats that carry only a URL).
    public var withoutOptions: PayloadAttachment {
        var copy = self
        copy.thumbnailHidden = false
        copy.clippingRect = nil
        copy.thumbnailTime = nil
        return copy
    }
}

/// A built payload: the JSON, what it carries, and its size against the sender's limit.
public struct Payload: Sendable, Equatable {
    public var format: PayloadFormat
    public var mode: PayloadMode
    /// The payload tree; ``compactString`` is what to send.
    public var json: PayloadJSON
    /// The attachments the payload carries, in order, with the options a device will apply
    /// (only what the format can express). Empty for a text-only payload.
    public var attachments: [PayloadAttachment]
    /// Things the sender should know (text-only fallback, options the format cannot carry, …).
    public var warnings: [String]
    /// The platforms the payload addresses.
    public var platforms: [PayloadPlatform] = []
    /// Limits on parts of the payload, checked by ``checkSize()`` besides the whole payload's
    /// (Braze counts each message object on its own).
    public var objectLimits: [ObjectLimit] = []

    /// Compact JSON, keys sorted: the bytes to send.
    public var compactString: String { json.compactString }
    /// Indented JSON, keys sorted.
    public var prettyString: String { json.prettyString }
    /// UTF-8 bytes of ``compactString``.
    public var byteCount: Int { json.compactByteCount }
    /// The sender's limit for this format.
    public var byteLimit: Int { format.byteLimit }

    /// Whether ``byteLimit`` applies to the whole payload: not for Braze, whose body holds one
    /// push per platform, each held to its own limits (``objectLimits``).
    public var limitsWholePayload: Bool { format != .braze }

    /// The sizes against their limits, in words, for people (`pushmedia payload` prints it).
    public var sizeSummary: String {
        let parts =
            (limitsWholePayload ? ["\(byteCount) of \(byteLimit) bytes"] : [])
            + objectLimits.map { "\($0.object) \($0.bytes) of \($0.limit) bytes" }
        return "\(format.rawValue) payload: " + parts.joined(separator: ", ")
    }

    /// Throws ``PayloadError/objectOverLimit(format:object:bytes:limit:source:)`` for the first
    /// part over its limit, then
    /// ``PayloadError/overLimit(format:bytes:limit:largestField:largestFieldBytes:)`` when the
    /// compact payload is larger than ``byteLimit``.
    public func checkSize() throws(PayloadError) {
        for check in objectLimits where check.bytes > check.limit {
            throw .objectOverLimit(format: format, object: check.object, bytes: check.bytes, limit: check.limit, source: check.source)
        }
        let bytes = byteCount
        guard limitsWholePayload, bytes > byteLimit else { return }
        let largest = json.largestLeaf ?? (path: "(root)", bytes: bytes)
        throw .overLimit(
            format: format, bytes: bytes, limit: byteLimit, largestField: largest.path,
            largestFieldBytes: largest.bytes)
    }
}

/// A vendor's limit on one part of a payload, and that part's size.
public struct ObjectLimit: Sendable, Equatable {
    /// What is measured, e.g. `apple_push` or `android_push alert + extra`.
    public var object: String
    /// Its size as the vendor counts it: the compact JSON of the part.
    public var bytes: Int
    public var limit: Int
    /// Where the limit comes from, in words (also in `docs/payload.md`).
    public var source: String

    public init(object: String, bytes: Int, limit: Int, source: String) {
        self.object = object
        self.bytes = bytes
        self.limit = limit
        self.source = source
    }
}

/// Builds the payload a sender needs from a manifest ``Item``.
///
/// ```swift
/// let builder = PayloadBuilder(title: "Sale", body: "50% off today", mode: .multi)
/// let payload = try builder.build(item, format: .apns)
/// print(payload.compactString)
/// ```
public struct PayloadBuilder: Sendable {
    /// Notification title (`aps.alert.title` and the vendors' equivalents).
    public var title: String?
    /// Notification body.
    public var body: String?
    public var mode: PayloadMode
    /// When set, every attachment URL is this base joined with the attachment's ``Attachment/file``
    /// (overriding URLs in the manifest).
    public var baseURL: String?
    /// The platforms to address; nil: the format's ``PayloadFormat/defaultPlatforms``. A platform
    /// the format cannot reach is ``PayloadError/unreachablePlatform(format:platform:)``.
    public var platforms: [PayloadPlatform]?
    /// `adobe` only: an animated GIF item's GIF as the Android big picture (`adb_image`), which
    /// Adobe's SDK animates on Android 14+ when the URL ends in `.gif`; off, the still is sent.
    public var animatedAndroidImage: Bool

    public init(
        title: String? = nil, body: String? = nil, mode: PayloadMode = .multi, baseURL: String? = nil,
        platforms: [PayloadPlatform]? = nil, animatedAndroidImage: Bool = false
    ) {
        self.title = title
        self.body = body
        self.mode = mode
        self.baseURL = baseURL
        self.platforms = platforms
        self.animatedAndroidImage = animatedAndroidImage
    }

    /// The platforms a payload in `format` addresses: ``platforms`` in the format's order, or its
    /// defaults; ``PayloadError/unreachablePlatform(format:platform:)`` for one it cannot reach.
    public func platforms(for format: PayloadFormat) throws(PayloadError) -> [PayloadPlatform] {
        guard let platforms else { return format.defaultPlatforms }
        if let unreachable = platforms.first(where: { !format.platforms.contains($0) }) {
            throw .unreachablePlatform(format: format, platform: unreachable)
        }
        return format.platforms.filter(platforms.contains)
    }

    /// The item with `source` in `manifest`, or ``PayloadError/itemNotFound(source:known:)``.
    public static func item(source: String, in manifest: Manifest) throws(PayloadError) -> Item {
        guard let item = manifest.item(source: source) else {
            throw .itemNotFound(source: source, known: manifest.items.map(\.source))
        }
        return item
    }

    /// Builds and size-checks the payload for `item` in `format`.
    public func build(_ item: Item, format: PayloadFormat) throws(PayloadError) -> Payload {
        let payload = try render(item, format: format)
        try payload.checkSize()
        return payload
    }

    /// Builds the payload without the size check (``build(_:format:)`` is the checked form).
    public func render(_ item: Item, format: PayloadFormat) throws(PayloadError) -> Payload {
        let platforms = try platforms(for: format)
        if animatedAndroidImage && format != .adobe {
            throw .optionNotForFormat(option: "the animated Android image", format: format, only: .adobe)
        }
        let text = try AlertText(title: title, body: body)
        var warnings: [String] = []
        var selected = try selectAttachments(for: item, warnings: &warnings)
        // Without iOS no attachment is sent; the selection still checked the item's URLs.
        if !platforms.contains(.ios) { selected = [] }
        var androidImage: PayloadAttachment?
        var largeIcon: PayloadAttachment?
        if format != .apns, item.status == .ok {
            let base = try resolvedBaseURL()
            if let image = Self.androidImage(of: item) {
                androidImage = try make(image, base: base, hidden: false, keepThumbnailOptions: false)
            }
            if let thumbnail = item.attachment(.thumbnail), AttachmentType.forTypeHint(thumbnail.typeHint)?.category == .image {
                largeIcon = try make(thumbnail, base: base, hidden: false, keepThumbnailOptions: false)
            }
        }
        var animated: PayloadAttachment?
        if animatedAndroidImage, item.status == .ok, let gif = item.attachment(.expanded),
            gif.typeHint == AttachmentType.gif.typeHint
        {
            animated = try make(gif, base: try resolvedBaseURL(), hidden: false, keepThumbnailOptions: false)
        }
        let context = FormatContext(
            item: item, mode: mode, platforms: Set(platforms), text: text, selected: selected, androidImage: androidImage,
            largeIcon: largeIcon, animatedAndroidImage: animated, askedForAnimation: animatedAndroidImage, warnings: warnings)
        var payload: Payload
        switch format {
        case .apns: payload = try Self.apns(context)
        case .braze: payload = try Self.braze(context)
        case .adobe: payload = try Self.adobe(context)
        case .airship: payload = try Self.airship(context)
        case .onesignal: payload = try Self.oneSignal(context)
        case .fcm: payload = try Self.fcm(context)
        }
        if !selected.isEmpty && !format.carriesSeveralAttachments && mode == .multi {
            payload.warnings.append(
                "\(format.rawValue) carries one URL: sending the \(selected[0].role.rawValue) attachment only (--mode has no effect)")
        }
        if selected.count > 1, let why = Self.unorderedAttachments(format) {
            payload.warnings.append("\(format.rawValue) --mode multi: \(why); --mode single (its default) sends one attachment")
        }
        payload.platforms = platforms
        return payload
    }

    /// Why `format`'s device SDK may not show several attachments as `multi` means them, or nil.
    static func unorderedAttachments(_ format: PayloadFormat) -> String? {
        switch format {
        case .airship:
            "Airship's iOS SDK adds attachments in the order their downloads finish (the small thumbnail often first, "
                + "shown as the expanded image), and its newer extension drops every attachment when one fails"
        case .onesignal:
            "OneSignal's iOS SDK walks ios_attachments as an unordered dictionary, so either attachment may come first, "
                + "and it has no ThumbnailHidden flag"
        case .apns, .braze, .adobe, .fcm: nil
        }
    }

    /// The attachments this builder's mode sends for `item`, in order, with their options.
    ///
    /// - `multi`: the primary attachment (movie/audio, else the expanded image) with
    ///   `thumbnailHidden` and no thumbnail options, then the square thumbnail.
    /// - `single`: the primary attachment with its manifest options (clipping rect, time).
    ///
    /// Empty, with a warning, for failed items and items without attachments.
    public func selectAttachments(for item: Item) throws(PayloadError) -> [PayloadAttachment] {
        var warnings: [String] = []
        return try selectAttachments(for: item, warnings: &warnings)
    }

    func selectAttachments(for item: Item, warnings: inout [String]) throws(PayloadError) -> [PayloadAttachment] {
        guard item.status == .ok else {
            let reason = item.error.map { "\($0.code): \($0.message)" } ?? "no error recorded"
            warnings.append("item \(item.source) failed (\(reason)): sending a text-only notification")
            return []
        }
        guard let primary = Self.primary(of: item) else {
            warnings.append("item \(item.source) has no attachments: sending a text-only notification")
            return []
        }
        let base = try resolvedBaseURL()
        switch mode {
        case .single:
            return [try make(primary, base: base, hidden: false, keepThumbnailOptions: true)]
        case .multi:
            guard let thumbnail = item.attachment(.thumbnail), thumbnail.role != primary.role else {
                warnings.append("item \(item.source) has no separate thumbnail: sending one attachment")
                return [try make(primary, base: base, hidden: false, keepThumbnailOptions: true)]
            }
            return [
                try make(primary, base: base, hidden: true, keepThumbnailOptions: false),
                try make(thumbnail, base: base, hidden: false, keepThumbnailOptions: true),
            ]
        }
    }

    /// The attachment formats with one URL send: the movie or audio for media, else the
    /// expanded image, else the thumbnail.
    public static func primary(of item: Item) -> Attachment? {
        item.attachment(.media) ?? item.attachment(.expanded) ?? item.attachment(.thumbnail)
    }

    /// The image Android's SDKs download for `item` (FCM's `android.notification.image`, the
    /// vendors' big picture): its `android` attachment, when it is an image. Manifests written
    /// before PushMedia made one have none (payloads then carry no Android image, with a warning).
    public static func androidImage(of item: Item) -> Attachment? {
        guard let android = item.attachment(.android), AttachmentType.forTypeHint(android.typeHint)?.category == .image else {
            return nil
        }
        return android
    }

    /// The URL a payload names for `attachment`: ``baseURL`` joined with its file, else the
    /// manifest's URL; an absolute https URL, or a ``PayloadError``.
    public func url(of attachment: Attachment) throws(PayloadError) -> String {
        try url(for: attachment, base: try resolvedBaseURL())
    }

    private func make(
        _ attachment: Attachment, base: String?, hidden: Bool, keepThumbnailOptions: Bool
    ) throws(PayloadError) -> PayloadAttachment {
        guard AttachmentType.forTypeHint(attachment.typeHint) != nil else {
            throw .unsupportedType(role: attachment.role, typeHint: attachment.typeHint)
        }
        var rect: UnitRect?
        var time: Double?
        if keepThumbnailOptions {
            if let r = attachment.options.thumbnailClippingRect {
                guard r.isValid else { throw .invalidClipRect(role: attachment.role, r) }
                rect = Self.rounded(r)
            }
            if let t = attachment.options.thumbnailTime {
                guard t.isFinite, t >= 0 else { throw .invalidThumbnailTime(role: attachment.role, t) }
                time = (t * 1000).rounded() / 1000
            }
        }
        return PayloadAttachment(
            role: attachment.role, url: try url(for: attachment, base: base),
            typeHint: attachment.typeHint, fileExtension: attachment.fileExtension,
            bytes: attachment.bytes, thumbnailHidden: hidden, clippingRect: rect, thumbnailTime: time,
            width: attachment.width, height: attachment.height)
    }

    /// Rounds to 4 decimals (0.01 % of the image) and keeps the rect inside the unit square.
    static func rounded(_ r: UnitRect) -> UnitRect {
        func round4(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }
        let x = round4(r.x)
        let y = round4(r.y)
        let width = min(round4(r.width), round4(1 - x))
        let height = min(round4(r.height), round4(1 - y))
        return UnitRect(x: x, y: y, width: width, height: height)
    }

    private func resolvedBaseURL() throws(PayloadError) -> String? {
        guard let baseURL else { return nil }
        if let reason = BaseURL.problem(baseURL) { throw .invalidBaseURL(baseURL, reason: reason) }
        return baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }

    private func url(for attachment: Attachment, base: String?) throws(PayloadError) -> String {
        let url: String
        if let base {
            let file = attachment.file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? attachment.file
            url = base + (file.hasPrefix("/") ? String(file.dropFirst()) : file)
        } else if let manifestURL = attachment.url {
            url = manifestURL
        } else {
            throw .missingURL(role: attachment.role, file: attachment.file)
        }
        if let reason = Self.httpsProblem(url) { throw .invalidURL(role: attachment.role, url: url, reason: reason) }
        return url
    }

    /// Why `string` is not an absolute https URL, or `nil` when it is one.
    static func httpsProblem(_ string: String) -> String? {
        if string.isEmpty { return "is empty" }
        if string.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
            return "contains whitespace or control characters"
        }
        guard let components = URLComponents(string: string) else { return "is not a valid URL" }
        guard let scheme = components.scheme else { return "is not absolute (no scheme)" }
        guard scheme.lowercased() == "https" else { return "uses \(scheme), not https" }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        return nil
    }
}

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
