/// One file to attach to a notification (`UNNotificationAttachment`).
public struct Attachment: Codable, Sendable, Equatable {
    /// Unique within the item: `thumbnail`, `expanded`, `media`.
    public var identifier: String
    public var role: Role
    /// File name inside the output folder (content-addressed: `<sha256 prefix>-<role>.<ext>`).
    public var file: String
    /// `--base-url` joined with ``file``, when a base URL was given.
    public var url: String?
    /// The UTI iOS should use, e.g. `public.jpeg`.
    public var typeHint: String
    /// Extension without the dot, e.g. `jpg`.
    public var fileExtension: String
    public var mimeType: String
    public var bytes: Int
    /// SHA-256 of the file, lowercase hex.
    public var sha256: String
    public var width: Int?
    public var height: Int?
    /// Frames of an animated GIF.
    public var frames: Int?
    /// The byte budget this file had to meet (never above the type's hard limit).
    public var budget: Int?
    /// What the budget ladder did to fit.
    public var encoding: Encoding?
    /// Length of a movie or audio file, in seconds.
    public var durationSeconds: Double?
    /// How a movie or audio file was made from the input: kept, remuxed or transcoded.
    public var media: MediaEncoding?
    /// Thumbnail and expanded images: the unit rect of the oriented input (a movie's poster
    /// frame, audio's cover art) the image was cut from, so faces and the subject can be placed
    /// on it.
    public var sourceRect: UnitRect?
    public var options: Options

    public init(
        identifier: String, role: Role, file: String, url: String? = nil, typeHint: String,
        fileExtension: String, mimeType: String, bytes: Int, sha256: String, width: Int? = nil,
        height: Int? = nil, frames: Int? = nil, budget: Int? = nil, encoding: Encoding? = nil,
        durationSeconds: Double? = nil, media: MediaEncoding? = nil, options: Options
    ) {
        self.durationSeconds = durationSeconds
        self.media = media
        self.frames = frames
        self.budget = budget
        self.encoding = encoding
        self.identifier = identifier
        self.role = role
        self.file = file
        self.url = url
        self.typeHint = typeHint
        self.fileExtension = fileExtension
        self.mimeType = mimeType
        self.bytes = bytes
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.options = options
    }

    /// The settings the encoder ended with, and how many encodes it took to get there.
    public struct Encoding: Codable, Sendable, Equatable {
        /// JPEG quality.
        public var quality: Int?
        /// Palette size (PNG palette or GIF colours); absent for true colour.
        public var colours: Int?
        /// Scale relative to the planned size (1 = not downscaled).
        public var scale: Double
        /// Frames kept of an animation (of ``framesTotal``).
        public var framesKept: Int?
        public var framesTotal: Int?
        /// GIF: the inter-frame error the output was written with (pixels within it of the
        /// previous frame are transparent).
        public var interframeMaxError: Double?
        /// Encodes tried.
        public var attempts: Int

        public init(
            quality: Int? = nil, colours: Int? = nil, scale: Double = 1, framesKept: Int? = nil, framesTotal: Int? = nil,
            interframeMaxError: Double? = nil, attempts: Int
        ) {
            self.interframeMaxError = interframeMaxError
            self.quality = quality
            self.colours = colours
            self.scale = scale
            self.framesKept = framesKept
            self.framesTotal = framesTotal
            self.attempts = attempts
        }
    }

    /// What was done to a movie or audio input to make the attachment.
    public struct MediaEncoding: Codable, Sendable, Equatable {
        public var action: Action
        /// Container written, e.g. `mp4`, `m4a`, `mp3`.
        public var container: String
        public var videoCodec: String?
        public var audioCodec: String?
        /// Target bit rates of a transcode, bits per second.
        public var videoBitRate: Int?
        public var audioBitRate: Int?
        /// Transcodes tried until the file fit its budget (0 when nothing was encoded).
        public var attempts: Int
        /// Seconds kept when the profile allowed trimming a clip too long for its budget.
        public var trimmedToSeconds: Double?

        public init(
            action: Action, container: String, videoCodec: String? = nil, audioCodec: String? = nil,
            videoBitRate: Int? = nil, audioBitRate: Int? = nil, attempts: Int = 0, trimmedToSeconds: Double? = nil
        ) {
            self.action = action
            self.container = container
            self.videoCodec = videoCodec
            self.audioCodec = audioCodec
            self.videoBitRate = videoBitRate
            self.audioBitRate = audioBitRate
            self.attempts = attempts
            self.trimmedToSeconds = trimmedToSeconds
        }

        public enum Action: String, Codable, Sendable, Equatable {
            /// The original bytes, unchanged: iOS plays them and they fit.
            case kept
            /// The same streams copied into an MP4 (no re-encode).
            case remuxed
            /// Decoded and encoded again (H.264 + AAC in MP4, or AAC in M4A).
            case transcoded
        }
    }

    /// What the attachment is for.
    public enum Role: String, Codable, Sendable, Equatable, CaseIterable {
        /// The square image shown in the collapsed notification.
        case thumbnail
        /// The rectangular (2:1 by default) image shown when the notification is expanded.
        case expanded
        /// The movie or audio itself.
        case media
    }

    /// `UNNotificationAttachment` options, under PushMedia's names.
    public struct Options: Codable, Sendable, Equatable {
        /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`.
        public var thumbnailHidden: Bool
        /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`, on the expanded image;
        /// written in Apple's dictionary form, `{"X", "Y", "Width", "Height"}`.
        public var thumbnailClippingRect: UnitRect?
        /// `UNNotificationAttachmentOptionsThumbnailTimeKey`: seconds for movies, a frame number
        /// for animated images.
        public var thumbnailTime: Double?

        public init(
            thumbnailHidden: Bool, thumbnailClippingRect: UnitRect? = nil,
            thumbnailTime: Double? = nil
        ) {
            self.thumbnailHidden = thumbnailHidden
            self.thumbnailClippingRect = thumbnailClippingRect
            self.thumbnailTime = thumbnailTime
        }

        enum CodingKeys: String, CodingKey {
            case thumbnailHidden
            case thumbnailClippingRect
            case thumbnailTime
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            thumbnailHidden = try container.decode(Bool.self, forKey: .thumbnailHidden)
            thumbnailClippingRect = try container.decodeIfPresent(UnitRect.AppleDictionary.self, forKey: .thumbnailClippingRect)?.rect
            thumbnailTime = try container.decodeIfPresent(Double.self, forKey: .thumbnailTime)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(thumbnailHidden, forKey: .thumbnailHidden)
            try container.encodeIfPresent(thumbnailClippingRect.map(UnitRect.AppleDictionary.init), forKey: .thumbnailClippingRect)
            try container.encodeIfPresent(thumbnailTime, forKey: .thumbnailTime)
        }
    }
}
