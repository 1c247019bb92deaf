import Foundation
import PushMediaModel

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
