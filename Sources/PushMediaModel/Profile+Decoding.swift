// Partial profiles: every key is optional and falls back to the built-in default; keys that are
// not known are refused, so a typo never silently does nothing.

extension Profile {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, thumbnail, expanded, crop, jpeg, png, animation, video, audio, budgets, delivery, limits, android
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Profile()
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? d.name
        thumbnail = try c.decodeIfPresent(Thumbnail.self, forKey: .thumbnail) ?? d.thumbnail
        expanded = try c.decodeIfPresent(Expanded.self, forKey: .expanded) ?? d.expanded
        crop = try c.decodeIfPresent(CropStrategy.self, forKey: .crop) ?? d.crop
        jpeg = try c.decodeIfPresent(JPEG.self, forKey: .jpeg) ?? d.jpeg
        png = try c.decodeIfPresent(PNG.self, forKey: .png) ?? d.png
        animation = try c.decodeIfPresent(Animation.self, forKey: .animation) ?? d.animation
        video = try c.decodeIfPresent(Video.self, forKey: .video) ?? d.video
        audio = try c.decodeIfPresent(Audio.self, forKey: .audio) ?? d.audio
        budgets = try c.decodeIfPresent(Budgets.self, forKey: .budgets) ?? d.budgets
        delivery = try c.decodeIfPresent(Delivery.self, forKey: .delivery) ?? d.delivery
        limits = try c.decodeIfPresent(Limits.self, forKey: .limits) ?? d.limits
        android = try c.decodeIfPresent(Android.self, forKey: .android) ?? d.android
    }
}

extension Profile.Android {
    enum CodingKeys: String, CodingKey, CaseIterable { case maxWidth, minWidth, budget }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        maxWidth = try c.decodeIfPresent(Int.self, forKey: .maxWidth) ?? d.maxWidth
        // Not above the width; a width out of range is reported alone.
        minWidth = try c.decodeIfPresent(Int.self, forKey: .minWidth) ?? min(d.minWidth, max(1, maxWidth))
        budget = try c.decodeIfPresent(Int.self, forKey: .budget) ?? d.budget
    }
}

extension Profile.Thumbnail {
    enum CodingKeys: String, CodingKey, CaseIterable { case size }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        size = try c.decodeIfPresent(Int.self, forKey: .size) ?? Self().size
    }
}

extension Profile.Expanded {
    enum CodingKeys: String, CodingKey, CaseIterable { case aspect, maxWidth }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        aspect = try c.decodeIfPresent(AspectRatio.self, forKey: .aspect) ?? d.aspect
        maxWidth = try c.decodeIfPresent(Int.self, forKey: .maxWidth) ?? d.maxWidth
    }
}

extension Profile.JPEG {
    enum CodingKeys: String, CodingKey, CaseIterable { case quality, minQuality }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        quality = try c.decodeIfPresent(Int.self, forKey: .quality) ?? d.quality
        // Not above the quality; a quality out of range is reported alone.
        minQuality = try c.decodeIfPresent(Int.self, forKey: .minQuality) ?? min(d.minQuality, max(1, quality))
    }
}

extension Profile.Animation {
    enum CodingKeys: String, CodingKey, CaseIterable { case stillThumbnail, minColours, maxFrameStep, maxFramesPerSecond }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        stillThumbnail = try c.decodeIfPresent(Bool.self, forKey: .stillThumbnail) ?? d.stillThumbnail
        minColours = try c.decodeIfPresent(Int.self, forKey: .minColours) ?? d.minColours
        maxFrameStep = try c.decodeIfPresent(Int.self, forKey: .maxFrameStep) ?? d.maxFrameStep
        maxFramesPerSecond = try c.decodeIfPresent(Int.self, forKey: .maxFramesPerSecond) ?? d.maxFramesPerSecond
    }
}

extension Profile.Video {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxLongSide, maxFrameRate, preset, audioBitRate, minBitRate, trimToSeconds, posterWindowSeconds
    }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        maxLongSide = try c.decodeIfPresent(Int.self, forKey: .maxLongSide) ?? d.maxLongSide
        maxFrameRate = try c.decodeIfPresent(Double.self, forKey: .maxFrameRate) ?? d.maxFrameRate
        preset = try c.decodeIfPresent(String.self, forKey: .preset) ?? d.preset
        audioBitRate = try c.decodeIfPresent(Int.self, forKey: .audioBitRate) ?? d.audioBitRate
        minBitRate = try c.decodeIfPresent(Int.self, forKey: .minBitRate) ?? d.minBitRate
        trimToSeconds = try c.decodeIfPresent(Double.self, forKey: .trimToSeconds) ?? d.trimToSeconds
        posterWindowSeconds = try c.decodeIfPresent(Double.self, forKey: .posterWindowSeconds) ?? d.posterWindowSeconds
    }
}

extension Profile.Audio {
    enum CodingKeys: String, CodingKey, CaseIterable { case bitRate, minBitRate }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        bitRate = try c.decodeIfPresent(Int.self, forKey: .bitRate) ?? d.bitRate
        // Not above the bit rate; a bit rate out of range is reported alone.
        minBitRate = try c.decodeIfPresent(Int.self, forKey: .minBitRate) ?? min(d.minBitRate, max(16_000, bitRate))
    }
}

extension Profile.Budgets {
    enum CodingKeys: String, CodingKey, CaseIterable { case thumbnail, expanded, animated, movie, audio }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        thumbnail = try c.decodeIfPresent(Int.self, forKey: .thumbnail) ?? d.thumbnail
        expanded = try c.decodeIfPresent(Int.self, forKey: .expanded) ?? d.expanded
        animated = try c.decodeIfPresent(Int.self, forKey: .animated) ?? d.animated
        movie = try c.decodeIfPresent(Int.self, forKey: .movie) ?? d.movie
        audio = try c.decodeIfPresent(Int.self, forKey: .audio) ?? d.audio
    }
}

extension Profile.Limits {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxInputBytes, maxPixels, maxFrames, maxAnimationPixels, timeoutSeconds, maxDurationSeconds
        case mediaTimeoutSeconds, faceNetMilliseconds
    }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = Self()
        maxInputBytes = try c.decodeIfPresent(Int.self, forKey: .maxInputBytes) ?? d.maxInputBytes
        maxPixels = try c.decodeIfPresent(Int.self, forKey: .maxPixels) ?? d.maxPixels
        maxFrames = try c.decodeIfPresent(Int.self, forKey: .maxFrames) ?? d.maxFrames
        maxAnimationPixels = try c.decodeIfPresent(Int.self, forKey: .maxAnimationPixels) ?? d.maxAnimationPixels
        timeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? d.timeoutSeconds
        maxDurationSeconds = try c.decodeIfPresent(Double.self, forKey: .maxDurationSeconds) ?? d.maxDurationSeconds
        mediaTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .mediaTimeoutSeconds) ?? d.mediaTimeoutSeconds
        faceNetMilliseconds = try c.decodeIfPresent(Double.self, forKey: .faceNetMilliseconds) ?? d.faceNetMilliseconds
    }
}

extension Profile.PNG {
    enum CodingKeys: String, CodingKey, CaseIterable { case compression }
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        compression = try c.decodeIfPresent(Int.self, forKey: .compression) ?? Self().compression
    }
}

struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Throws when the keyed container at `decoder` has a key outside `known`. The message names the
/// first ``unknownKeysShown`` of them (sorted, each at most 64 characters) and counts the rest, so
/// that a file of millions of keys gives a short message.
func rejectUnknownKeys(_ decoder: Decoder, known: [String]) throws {
    let container = try decoder.container(keyedBy: AnyCodingKey.self)
    let unknown = container.allKeys.map(\.stringValue).filter { !known.contains($0) }
    guard unknown.isEmpty else {
        let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        let shown = unknown.sorted().prefix(unknownKeysShown)
        let more = unknown.count - shown.count
        throw DecodingError.dataCorrupted(
            .init(
                codingPath: decoder.codingPath,
                debugDescription:
                    "unknown key\(unknown.count > 1 ? "s" : "") \(shown.map { "\"\(Profile.clipped($0))\"" }.joined(separator: ", "))"
                    + (more > 0 ? " and \(more) more" : "")
                    + (path.isEmpty ? "" : " in \(path)") + "; known: \(known.joined(separator: ", "))"))
    }
}

/// How many unknown keys an error message names.
let unknownKeysShown = 5
