// Partial profiles: every key is optional and falls back to the built-in default; keys that are
// not known are refused, so a typo never silently does nothing.

extension Profile {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, thumbnail, expanded, crop, jpeg, png, animation, video, audio, budgets, delivery, limits
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
    }

    /// Problems with the values (out of range), in words; empty when the profile is usable.
    public var problems: [String] {
        var out: [String] = []
        func check(_ value: Int, _ range: ClosedRange<Int>, _ key: String) {
            if !range.contains(value) { out.append("\(key) must be in \(range.lowerBound)…\(range.upperBound), got \(value)") }
        }
        check(thumbnail.size, 16...4096, "thumbnail.size")
        check(expanded.maxWidth, 16...8192, "expanded.maxWidth")
        check(expanded.aspect.width, 1...100, "expanded.aspect width")
        check(expanded.aspect.height, 1...100, "expanded.aspect height")
        check(jpeg.quality, 1...100, "jpeg.quality")
        check(png.compression, 0...9, "png.compression")
        check(jpeg.minQuality, 1...jpeg.quality, "jpeg.minQuality")
        check(animation.minColours, 2...256, "animation.minColours")
        check(animation.maxFrameStep, 1...8, "animation.maxFrameStep")
        check(animation.maxFramesPerSecond, 0...50, "animation.maxFramesPerSecond")
        let image = AttachmentType.maxBytes(for: .image)
        check(budgets.thumbnail, 1_000...image, "budgets.thumbnail")
        check(budgets.expanded, 1_000...image, "budgets.expanded")
        check(budgets.animated, 1_000...image, "budgets.animated")
        check(budgets.movie, 10_000...AttachmentType.maxBytes(for: .movie), "budgets.movie")
        check(budgets.audio, 10_000...AttachmentType.maxBytes(for: .audio), "budgets.audio")
        check(limits.maxInputBytes, 1...(1 << 40), "limits.maxInputBytes")
        check(limits.maxPixels, 1...(1 << 40), "limits.maxPixels")
        check(limits.maxFrames, 1...100_000, "limits.maxFrames")
        check(limits.maxAnimationPixels, 1...(1 << 42), "limits.maxAnimationPixels")
        func check(_ value: Double, _ range: ClosedRange<Double>, _ key: String) {
            if !(value > 0 && range.contains(value)) {
                out.append("\(key) must be in \(range.lowerBound)…\(range.upperBound) (exclusive of 0), got \(value)")
            }
        }
        check(limits.timeoutSeconds, 0...3600, "limits.timeoutSeconds")
        check(limits.mediaTimeoutSeconds, 0...3600, "limits.mediaTimeoutSeconds")
        check(limits.maxDurationSeconds, 0...86400, "limits.maxDurationSeconds")
        check(video.maxLongSide, 16...7680, "video.maxLongSide")
        check(video.maxFrameRate, 0...240, "video.maxFrameRate")
        check(video.posterWindowSeconds, 0...600, "video.posterWindowSeconds")
        if let trim = video.trimToSeconds { check(trim, 0...86400, "video.trimToSeconds") }
        check(video.audioBitRate, 16_000...512_000, "video.audioBitRate")
        check(video.minBitRate, 50_000...50_000_000, "video.minBitRate")
        if !Video.presets.contains(video.preset) {
            out.append("video.preset must be one of \(Video.presets.joined(separator: ", ")), got \"\(video.preset)\"")
        }
        check(audio.bitRate, 16_000...512_000, "audio.bitRate")
        check(audio.minBitRate, 16_000...audio.bitRate, "audio.minBitRate")
        return out + delivery.problems
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
        minQuality = try c.decodeIfPresent(Int.self, forKey: .minQuality) ?? min(d.minQuality, quality)
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
        minBitRate = try c.decodeIfPresent(Int.self, forKey: .minBitRate) ?? min(d.minBitRate, bitRate)
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
        case mediaTimeoutSeconds
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

/// Throws when the keyed container at `decoder` has a key outside `known`.
func rejectUnknownKeys(_ decoder: Decoder, known: [String]) throws {
    let container = try decoder.container(keyedBy: AnyCodingKey.self)
    let unknown = container.allKeys.map(\.stringValue).filter { !known.contains($0) }.sorted()
    guard unknown.isEmpty else {
        let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        throw DecodingError.dataCorrupted(
            .init(
                codingPath: decoder.codingPath,
                debugDescription:
                    "unknown key\(unknown.count > 1 ? "s" : "") \(unknown.map { "\"\($0)\"" }.joined(separator: ", "))"
                    + (path.isEmpty ? "" : " in \(path)") + "; known: \(known.joined(separator: ", "))"))
    }
}
