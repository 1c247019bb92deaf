/// A rectangle in unit coordinates (0…1) of an image, origin top-left. The manifest writes it two
/// ways: `{x, y, w, h}` for what it says about the input (`probe.faces`, an attachment's
/// `sourceRect`; this type's `Codable` form), and Apple's dictionary form `{"X", "Y", "Width",
/// "Height"}` for the thumbnail's clipping rect (``Attachment/Options/thumbnailClippingRect``),
/// which a payload hands to `UNNotificationAttachmentOptionsThumbnailClippingRectKey` as it is.
public struct UnitRect: Codable, Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    /// Width, as a share of the image's width.
    public var width: Double
    /// Height, as a share of the image's height.
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    enum CodingKeys: String, CodingKey {
        case x
        case y
        case width = "w"
        case height = "h"
    }

    /// The right edge, `x + width`.
    public var maxX: Double { x + width }
    /// The bottom edge, `y + height`.
    public var maxY: Double { y + height }
    /// The centre.
    public var centre: UnitPoint { UnitPoint(x: x + width / 2, y: y + height / 2) }

    /// The smallest rect containing both.
    public func union(_ other: UnitRect) -> UnitRect {
        let left = min(x, other.x)
        let top = min(y, other.y)
        return UnitRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// True when every value is finite and in 0…1, the size is positive and the rect lies inside
    /// the unit square.
    public var isValid: Bool {
        let values = [x, y, width, height]
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else { return false }
        return width > 0 && height > 0 && x + width <= 1 + 1e-9 && y + height <= 1 + 1e-9
    }
}

extension UnitRect {
    /// Apple's dictionary form of a rect (`CGRectCreateDictionaryRepresentation`):
    /// `{"X", "Y", "Width", "Height"}`, the manifest's `thumbnailClippingRect`.
    struct AppleDictionary: Codable {
        var rect: UnitRect

        init(_ rect: UnitRect) {
            self.rect = rect
        }

        enum CodingKeys: String, CodingKey {
            case x = "X"
            case y = "Y"
            case width = "Width"
            case height = "Height"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            rect = UnitRect(
                x: try container.decode(Double.self, forKey: .x), y: try container.decode(Double.self, forKey: .y),
                width: try container.decode(Double.self, forKey: .width), height: try container.decode(Double.self, forKey: .height))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rect.x, forKey: .x)
            try container.encode(rect.y, forKey: .y)
            try container.encode(rect.width, forKey: .width)
            try container.encode(rect.height, forKey: .height)
        }
    }
}
