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
