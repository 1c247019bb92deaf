/// What PushMedia detected from an input's bytes, before processing it.
public struct Probe: Codable, Sendable, Equatable {
    /// The detected format: `jpeg`, `png`, `webp`, `heif`, `tiff`, `gif`, `mp4`, …
    public var format: String
    /// The MIME type of the detected format.
    public var mimeType: String?
    /// Width as displayed, after EXIF orientation.
    public var width: Int?
    /// Height as displayed, after EXIF orientation.
    public var height: Int?
    /// EXIF orientation tag (1…8) when the file has one other than 1.
    public var orientation: Int?
    /// Bands (channels) of the stored image, alpha included.
    public var bands: Int?
    /// Bits per sample of the stored image.
    public var bitDepth: Int?
    /// The stored colour space, in libvips' terms (`srgb`, `cmyk`, `b-w`, `rgb16`, …).
    public var colourSpace: String?
    public var hasAlpha: Bool?
    public var hasICCProfile: Bool?
    /// Frames (pages) in the file: more than one for animations.
    public var frames: Int?
    /// Total duration of an animation, movie or audio file.
    public var durationSeconds: Double?
    /// Where the subject was found, as a unit point in the oriented image.
    public var subject: UnitPoint?
    /// Faces found in the oriented image, as unit rects, largest first (profile `crop: smart`;
    /// an empty list when it looked and found none, absent when it did not look).
    public var faces: [UnitRect]?
    /// What chose ``subject``: faces, attention, entropy or centre.
    public var subjectStrategy: SubjectStrategy?
    /// Movies and audio: FFmpeg's name of the container (`mov,mp4,m4a,3gp,3g2,mj2`, `ogg`, …).
    public var container: String?
    /// Movies and audio: overall bit rate, bits per second.
    public var bitRate: Int?
    /// Movies: clockwise display rotation of the video (from its display matrix).
    public var rotation: Int?
    /// Audio: the file carries cover art (an attached picture).
    public var hasCoverArt: Bool?
    /// Movies and audio: every stream of the file.
    public var streams: [MediaStream]?

    public init(
        format: String, mimeType: String? = nil, width: Int? = nil, height: Int? = nil,
        orientation: Int? = nil, bands: Int? = nil, bitDepth: Int? = nil,
        colourSpace: String? = nil, hasAlpha: Bool? = nil, hasICCProfile: Bool? = nil,
        frames: Int? = nil, durationSeconds: Double? = nil, subject: UnitPoint? = nil
    ) {
        self.format = format
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.orientation = orientation
        self.bands = bands
        self.bitDepth = bitDepth
        self.colourSpace = colourSpace
        self.hasAlpha = hasAlpha
        self.hasICCProfile = hasICCProfile
        self.frames = frames
        self.durationSeconds = durationSeconds
        self.subject = subject
    }
}

/// One stream of a movie or audio file.
public struct MediaStream: Codable, Sendable, Equatable {
    public var index: Int
    /// `video`, `audio`, `subtitle`, `attachment` or `data`.
    public var type: String
    /// FFmpeg's codec name: `h264`, `hevc`, `vp9`, `aac`, `mp3`, `opus`, …
    public var codec: String
    /// The container's tag for the codec (fourcc), e.g. `avc1`, `hvc1`, `hev1`; absent when none.
    public var codecTag: String?
    public var width: Int?
    public var height: Int?
    /// Clockwise display rotation in degrees.
    public var rotation: Int?
    public var frameRate: Double?
    public var pixelFormat: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var bitRate: Int?
    public var durationSeconds: Double?
    /// An attached picture (cover art), not a movie.
    public var coverArt: Bool?

    public init(index: Int, type: String, codec: String) {
        self.index = index
        self.type = type
        self.codec = codec
    }
}

/// A point in unit coordinates (0…1) of an image.
public struct UnitPoint: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
