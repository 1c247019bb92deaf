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

    public init(
        name: String = "default",
        thumbnail: Thumbnail = Thumbnail(),
        expanded: Expanded = Expanded(),
        crop: CropStrategy = .attention,
        jpeg: JPEG = JPEG(),
        png: PNG = PNG()
    ) {
        self.name = name
        self.thumbnail = thumbnail
        self.expanded = expanded
        self.crop = crop
        self.jpeg = jpeg
        self.png = png
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
        /// Largest height in pixels (from ``maxWidth`` and ``aspect``).
        public var maxHeight: Int { max(1, Int((Double(maxWidth) / aspect.value).rounded())) }
    }

    public struct JPEG: Codable, Sendable, Equatable {
        /// 1…100.
        public var quality: Int
        public init(quality: Int = 80) { self.quality = quality }
    }

    public struct PNG: Codable, Sendable, Equatable {
        /// zlib level 0…9.
        public var compression: Int
        public init(compression: Int = 6) { self.compression = compression }
    }
}

/// How the subject of an image is found.
public enum CropStrategy: String, Codable, Sendable, Equatable, CaseIterable {
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
                .init(codingPath: decoder.codingPath, debugDescription: "aspect must look like \"2:1\", got \"\(text)\""))
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
