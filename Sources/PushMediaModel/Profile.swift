/// Sizes, crop strategy and encoder settings for a run. Built-in defaults; a JSON or YAML file given
/// with `--profile` overrides any subset of them (unknown keys are an error, to catch typos).
public struct Profile: Codable, Sendable, Equatable {
    public var name: String
    public var thumbnail: Thumbnail
    public var expanded: Expanded
    /// How the subject is found; both crops and the clipping rect are centred on it.
    public var crop: CropStrategy
    public var jpeg: JPEG
    public var png: PNG
    public var animation: Animation
    /// Movies: poster frames and transcoding.
    public var video: Video
    /// Audio transcoding.
    public var audio: Audio
    /// Byte budgets per output, below Apple's hard limits.
    public var budgets: Budgets
    /// What one notification's media must do to arrive in time on a slow link; the byte budget
    /// of each attachment derives from it and from ``budgets``.
    public var delivery: Delivery
    /// Input safety limits, checked from the header before pixels are decoded.
    public var limits: Limits
    /// The Android image (FCM's `android.notification.image`, the vendors' big picture).
    public var android: Android

    public init(
        name: String = "default",
        thumbnail: Thumbnail = Thumbnail(),
        expanded: Expanded = Expanded(),
        crop: CropStrategy = .smart,
        jpeg: JPEG = JPEG(),
        png: PNG = PNG(),
        animation: Animation = Animation(),
        video: Video = Video(),
        audio: Audio = Audio(),
        budgets: Budgets = Budgets(),
        delivery: Delivery = Delivery(),
        limits: Limits = Limits(),
        android: Android = Android()
    ) {
        self.android = android
        self.name = name
        self.thumbnail = thumbnail
        self.expanded = expanded
        self.crop = crop
        self.jpeg = jpeg
        self.png = png
        self.animation = animation
        self.video = video
        self.audio = audio
        self.budgets = budgets
        self.delivery = delivery
        self.limits = limits
    }

    /// The built-in profile.
    public static let `default` = Profile()

    /// The square thumbnail.
    public struct Thumbnail: Codable, Sendable, Equatable {
        /// Side in pixels; never upscaled past the source.
        public var size: Int
        public init(size: Int = 300) { self.size = size }
    }

    /// The rectangular expanded variant.
    public struct Expanded: Codable, Sendable, Equatable {
        /// Width : height, e.g. `2:1`.
        public var aspect: AspectRatio
        /// Largest width in pixels; the height follows from the aspect. Never upscaled past the source.
        public var maxWidth: Int
        public init(aspect: AspectRatio = AspectRatio(width: 2, height: 1), maxWidth: Int = 1200) {
            self.aspect = aspect
            self.maxWidth = maxWidth
        }
        /// Largest height in pixels (from ``maxWidth`` and ``aspect``); never traps, even for
        /// values ``Profile/problems`` refuses (then it is at least 1 and at most 2^53).
        public var maxHeight: Int {
            let height = (Double(maxWidth) / aspect.value).rounded()
            guard height.isFinite, height > 1 else { return 1 }
            return height < 0x1p53 ? Int(height) : 1 << 53
        }
    }

    public struct JPEG: Codable, Sendable, Equatable {
        /// 1…100: the quality used when the output fits its budget.
        public var quality: Int
        /// The lowest quality the budget search may go to before it downscales instead.
        public var minQuality: Int
        public init(quality: Int = 80, minQuality: Int = 40) {
            self.quality = quality
            self.minQuality = minQuality
        }
    }

    /// Animated images (GIF, animated WebP).
    public struct Animation: Codable, Sendable, Equatable {
        /// When true (the default) the thumbnail is a still image (JPEG, or PNG with real
        /// transparency) of the representative frame instead of an animated GIF: iOS draws the
        /// collapsed thumbnail as one frame anyway, and the animated one costs its full bytes.
        public var stillThumbnail: Bool
        /// Fewest colours the budget ladder may reduce a GIF to (2…256).
        public var minColours: Int
        /// Keep at least every n-th frame when dropping frames to fit the budget (2…8).
        public var maxFrameStep: Int
        /// Frame-rate cap of an animated output (0: none): frames shown for less than a frame
        /// interval are merged before any encoding, keeping the duration (1…50; default 25).
        public var maxFramesPerSecond: Int
        public init(stillThumbnail: Bool = true, minColours: Int = 32, maxFrameStep: Int = 4, maxFramesPerSecond: Int = 25) {
            self.stillThumbnail = stillThumbnail
            self.minColours = minColours
            self.maxFrameStep = maxFrameStep
            self.maxFramesPerSecond = maxFramesPerSecond
        }
    }

    /// Movies. The poster frame is searched in the first ``posterWindowSeconds``; a movie iOS
    /// cannot play, or over its budget, is transcoded to H.264 + AAC in MP4.
    public struct Video: Codable, Sendable, Equatable {
        /// Long side of a transcoded movie, in pixels (never upscaled).
        public var maxLongSide: Int
        /// Frames closer together than 1/maxFrameRate s are dropped when transcoding.
        public var maxFrameRate: Double
        /// libx264 preset (`ultrafast` … `veryslow`): slower is smaller at the same quality.
        public var preset: String
        /// AAC bit rate of a transcoded movie's sound, bits per second.
        public var audioBitRate: Int
        /// The lowest video bit rate a transcode may use to fit the budget; below it the movie
        /// fails with `over_budget` (or is trimmed, see ``trimToSeconds``).
        public var minBitRate: Int
        /// When set, a movie too long to fit its budget at ``minBitRate`` is cut to this many
        /// seconds (with a warning) instead of failing.
        public var trimToSeconds: Double?
        /// Seconds from the start in which the poster frame is searched.
        public var posterWindowSeconds: Double

        public init(
            maxLongSide: Int = 1280, maxFrameRate: Double = 30, preset: String = "veryfast", audioBitRate: Int = 128_000,
            minBitRate: Int = 250_000, trimToSeconds: Double? = nil, posterWindowSeconds: Double = 10
        ) {
            self.maxLongSide = maxLongSide
            self.maxFrameRate = maxFrameRate
            self.preset = preset
            self.audioBitRate = audioBitRate
            self.minBitRate = minBitRate
            self.trimToSeconds = trimToSeconds
            self.posterWindowSeconds = posterWindowSeconds
        }

        /// libx264's presets, fastest first.
        public static let presets = [
            "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow",
        ]
    }

    /// Audio that iOS cannot play (Opus, Vorbis, FLAC, …) or that is over its budget is
    /// transcoded to AAC in M4A.
    public struct Audio: Codable, Sendable, Equatable {
        /// AAC bit rate, bits per second, lowered when needed to fit the budget.
        public var bitRate: Int
        /// The lowest bit rate allowed to fit the budget; below it the item fails with `over_budget`.
        public var minBitRate: Int

        public init(bitRate: Int = 128_000, minBitRate: Int = 32_000) {
            self.bitRate = bitRate
            self.minBitRate = minBitRate
        }
    }

    /// Byte budgets (decimal: 1 KB = 1000 bytes, as Apple states its limits). Never above the
    /// hard limit of the attachment type.
    public struct Budgets: Codable, Sendable, Equatable {
        public var thumbnail: Int
        /// Expanded still image; 1 MB also fits FCM's Android image limit.
        public var expanded: Int
        /// Animated GIFs (thumbnail and expanded).
        public var animated: Int
        public var movie: Int
        public var audio: Int
        public init(
            thumbnail: Int = 150_000, expanded: Int = 1_000_000, animated: Int = 5_000_000,
            movie: Int = 10_000_000, audio: Int = 5_000_000
        ) {
            self.thumbnail = thumbnail
            self.expanded = expanded
            self.animated = animated
            self.movie = movie
            self.audio = audio
        }
    }

    /// Input safety limits. Each one fails the item with its own error code.
    public struct Limits: Codable, Sendable, Equatable {
        /// `input_too_large`.
        public var maxInputBytes: Int
        /// `too_many_pixels`: of a still image, or of one animation frame.
        public var maxPixels: Int
        /// `too_many_frames`.
        public var maxFrames: Int
        /// `too_many_frames`: frames × pixels per frame of an animation, a hard cap on what a
        /// file may declare (4 G by default, twice a 2048×2048 GIF of 480 frames). Below it an
        /// animation is refused only when what it would cost is over `timeoutSeconds`
        /// (`AnimationCost`, from the file's scan).
        public var maxAnimationPixels: Int
        /// `timeout`: seconds one image may take.
        public var timeoutSeconds: Double
        /// `too_long`: seconds of a movie or audio file.
        public var maxDurationSeconds: Double
        /// `timeout`: seconds one movie or audio file may take (transcoding takes longer).
        public var mediaTimeoutSeconds: Double
        /// Milliseconds of CPU the second face detector (dlib's CNN, `crop: smart`, banners only)
        /// may spend on one item looking for faces the first search missed; 0: it never runs.
        public var faceNetMilliseconds: Double
        public init(
            maxInputBytes: Int = 200_000_000, maxPixels: Int = 50_000_000, maxFrames: Int = 1000,
            maxAnimationPixels: Int = 4_000_000_000, timeoutSeconds: Double = 60, maxDurationSeconds: Double = 900,
            mediaTimeoutSeconds: Double = 300, faceNetMilliseconds: Double = 800
        ) {
            self.faceNetMilliseconds = faceNetMilliseconds
            self.maxDurationSeconds = maxDurationSeconds
            self.mediaTimeoutSeconds = mediaTimeoutSeconds
            self.maxInputBytes = maxInputBytes
            self.maxPixels = maxPixels
            self.maxFrames = maxFrames
            self.maxAnimationPixels = maxAnimationPixels
            self.timeoutSeconds = timeoutSeconds
        }
    }

    /// The Android image: one still, 2:1, with the subject in its centre square where the
    /// source allows (docs/configuration.md#android).
    ///
    /// Android keeps a big picture within 284 dp wide (`BigPictureStyle.reduceImageSizes`, the
    /// height dimen is passed as the width bound): 852 px at density 3, 994 px at 3.5, so 1024
    /// px covers the common densities without sending pixels the device throws away.
    public struct Android: Codable, Sendable, Equatable {
        /// Largest width in pixels; the height is half of it. Never upscaled past the source.
        public var maxWidth: Int
        /// Narrowest 2:1 window (in decoded pixels) the planner may shrink to so that an
        /// off-centre subject lies in the centre square; Braze asks for at least 600×300.
        public var minWidth: Int
        /// Byte budget of the image: 200 KB download in 1.6 s at 1 Mbit/s, well inside FCM's 5 s
        /// (Airship advises under 200 KB). Never above ``hardLimit``.
        public var budget: Int

        /// Firebase Messaging for Android refuses an image over 1 MiB (`MAX_IMAGE_SIZE_BYTES`).
        public static let hardLimit = Delivery.fcmImageLimit

        public init(maxWidth: Int = 1024, minWidth: Int = 600, budget: Int = 200_000) {
            self.maxWidth = maxWidth
            self.minWidth = minWidth
            self.budget = budget
        }
    }

    public struct PNG: Codable, Sendable, Equatable {
        /// zlib level 0…9.
        public var compression: Int
        public init(compression: Int = 6) { self.compression = compression }
    }
}

/// How the subject of an image is found.
public enum CropStrategy: String, Codable, Sendable, Equatable, CaseIterable {
    /// The default: faces (dlib's frontal-face detector) when there are any, else attention.
    case smart
    /// libvips' attention strategy: skin tones, saturated colour and edges.
    case attention
    /// The centre of the image.
    case centre
    /// The region with most entropy (detail).
    case entropy
}

/// A ratio such as 2:1, written as the string `"2:1"`.
public struct AspectRatio: Codable, Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `"W:H"` with positive integers.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0].trimmingWhitespace()),
            let h = Int(parts[1].trimmingWhitespace()), w > 0, h > 0
        else { return nil }
        self.init(width: w, height: h)
    }

    /// width / height.
    public var value: Double { Double(width) / Double(height) }
    public var description: String { "\(width):\(height)" }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let ratio = AspectRatio(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "aspect must look like \"2:1\", got \"\(Profile.clipped(text))\""))
        }
        self = ratio
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return s
    }
}
