import Foundation

/// The file types iOS accepts as notification attachments, with Apple's size limits
/// (images 10 MB, audio 5 MB, movies 50 MB). A copy of PushMedia's table, so that this module
/// stands alone in an app extension.
public struct AttachmentFileType: Sendable, Equatable {
    public enum Category: String, Sendable, CaseIterable {
        case image, audio, movie
    }

    public var category: Category
    /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey`.
    public var typeHint: String
    /// Extensions without the dot; the first is preferred.
    public var fileExtensions: [String]

    /// The most bytes iOS accepts for this type.
    public var maxBytes: Int {
        switch category {
        case .image: 10_000_000
        case .audio: 5_000_000
        case .movie: 50_000_000
        }
    }

    public init(category: Category, typeHint: String, fileExtensions: [String]) {
        self.category = category
        self.typeHint = typeHint
        self.fileExtensions = fileExtensions
    }

    /// Every type iOS accepts as a notification attachment.
    public static let all: [AttachmentFileType] = [
        .init(category: .image, typeHint: "public.jpeg", fileExtensions: ["jpg", "jpeg"]),
        .init(category: .image, typeHint: "public.png", fileExtensions: ["png"]),
        .init(category: .image, typeHint: "com.compuserve.gif", fileExtensions: ["gif"]),
        .init(category: .audio, typeHint: "public.aiff-audio", fileExtensions: ["aiff", "aif"]),
        .init(category: .audio, typeHint: "com.microsoft.waveform-audio", fileExtensions: ["wav"]),
        .init(category: .audio, typeHint: "public.mp3", fileExtensions: ["mp3"]),
        .init(category: .audio, typeHint: "com.apple.m4a-audio", fileExtensions: ["m4a"]),
        .init(category: .movie, typeHint: "public.mpeg", fileExtensions: ["mpg", "mpeg"]),
        .init(category: .movie, typeHint: "public.mpeg-2-video", fileExtensions: ["m2v"]),
        .init(category: .movie, typeHint: "public.mpeg-4", fileExtensions: ["mp4", "m4v"]),
        .init(category: .movie, typeHint: "public.avi", fileExtensions: ["avi"]),
    ]

    /// The type for a UTI, if iOS accepts it.
    public static func forTypeHint(_ uti: String) -> AttachmentFileType? {
        all.first { $0.typeHint == uti }
    }

    /// The type for an extension (case-insensitive, with or without the dot).
    public static func forExtension(_ ext: String) -> AttachmentFileType? {
        var e = ext.lowercased()
        if e.hasPrefix(".") { e.removeFirst() }
        return all.first { $0.fileExtensions.contains(e) }
    }
}

/// A rectangle in unit coordinates (0…1) of the attachment, as
/// `UNNotificationAttachmentOptionsThumbnailClippingRectKey` takes it.
///
/// The same rect as `PushMediaModel.UnitRect`, on purpose its own: this module depends on
/// nothing, so that a notification service extension can copy its files alone, and the
/// extension reads the rect from a payload rather than writing a manifest.
public struct UnitRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// True when every value is finite and in 0…1, the size is positive and the rect lies
    /// inside the unit square.
    public var isValid: Bool {
        let values = [x, y, width, height]
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else { return false }
        return width > 0 && height > 0 && x + width <= 1 + 1e-9 && y + height <= 1 + 1e-9
    }

    /// `{"X", "Y", "Width", "Height"}`: the dictionary form of a `CGRect`
    /// (`CGRectCreateDictionaryRepresentation`) that the clipping-rect option expects.
    public var dictionary: [String: Double] {
        ["X": x, "Y": y, "Width": width, "Height": height]
    }
}

/// The names of `UNNotificationAttachment`'s option keys. On iOS the UserNotifications
/// constants have these values; ``UNNotificationAttachment`` helpers use the constants themselves.
public enum AttachmentOptionKey {
    public static let typeHint = "UNNotificationAttachmentOptionsTypeHintKey"
    public static let thumbnailHidden = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
    public static let thumbnailClippingRect = "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
    public static let thumbnailTime = "UNNotificationAttachmentOptionsThumbnailTimeKey"
}

/// The options of one attachment.
public struct AttachmentOptions: Sendable, Equatable {
    /// Hide this attachment from the collapsed notification's thumbnail.
    public var thumbnailHidden: Bool
    /// The part of the attachment to show as the thumbnail.
    public var clippingRect: UnitRect?
    /// Seconds into a movie, or a frame number of an animated image, for the thumbnail.
    public var thumbnailTime: Double?

    public init(thumbnailHidden: Bool = false, clippingRect: UnitRect? = nil, thumbnailTime: Double? = nil) {
        self.thumbnailHidden = thumbnailHidden
        self.clippingRect = clippingRect
        self.thumbnailTime = thumbnailTime
    }
}

/// One attachment to download and attach, in the order iOS should get it: the first one is
/// shown in the expanded notification, the first one not hidden as the thumbnail.
public struct PlannedAttachment: Sendable, Equatable {
    /// The identifier for `UNNotificationAttachment` (from the payload when it names one).
    public var identifier: String
    /// Absolute https URL.
    public var url: URL
    /// The extension the downloaded file must be saved with (iOS checks it), without the dot.
    public var fileExtension: String
    public var type: AttachmentFileType
    public var options: AttachmentOptions

    public init(identifier: String, url: URL, fileExtension: String, type: AttachmentFileType, options: AttachmentOptions) {
        self.identifier = identifier
        self.url = url
        self.fileExtension = fileExtension
        self.type = type
        self.options = options
    }

    /// The UTI (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var typeHint: String { type.typeHint }

    /// Apple's size limit for this attachment's type.
    public var maxBytes: Int { type.maxBytes }

    /// The options under Apple's key names, ready for `UNNotificationAttachment(identifier:url:options:)`:
    /// always the type hint (a `String`) and thumbnail hidden (a `Bool`); the clipping rect (a
    /// `[String: Double]` with `X`, `Y`, `Width`, `Height`) and the thumbnail time (a `Double`)
    /// when they are set.
    public var optionsDictionary: [String: any Sendable] {
        var options: [String: any Sendable] = [
            AttachmentOptionKey.typeHint: type.typeHint,
            AttachmentOptionKey.thumbnailHidden: options.thumbnailHidden,
        ]
        if let rect = self.options.clippingRect { options[AttachmentOptionKey.thumbnailClippingRect] = rect.dictionary }
        if let time = self.options.thumbnailTime { options[AttachmentOptionKey.thumbnailTime] = time }
        return options
    }

    /// A file name for the download: the identifier reduced to ASCII letters, digits, `-` and
    /// `_`, plus the extension iOS needs to see.
    public var fileName: String {
        let safe = String(
            identifier.unicodeScalars.prefix(64).map { scalar -> Character in
                let ok =
                    scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_")
                return ok ? Character(scalar) : "_"
            })
        return (safe.isEmpty ? "attachment" : safe) + "." + fileExtension
    }
}
