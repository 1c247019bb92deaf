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

/// A point in unit coordinates (0…1) of an image.
public struct UnitPoint: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
