/// A rectangle in unit coordinates (0…1) of an image, origin top-left: a face in the manifest's
/// `probe.faces`, written `{x, y, w, h}`.
public struct UnitRect: Codable, Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    /// Width, as a share of the image's width.
    public var w: Double
    /// Height, as a share of the image's height.
    public var h: Double

    public init(x: Double, y: Double, w: Double, h: Double) {
        self.x = x
        self.y = y
        self.w = w
        self.h = h
    }

    /// The right edge, `x + w`.
    public var maxX: Double { x + w }
    /// The bottom edge, `y + h`.
    public var maxY: Double { y + h }
    /// The centre.
    public var centre: UnitPoint { UnitPoint(x: x + w / 2, y: y + h / 2) }

    /// The smallest rect containing both.
    public func union(_ other: UnitRect) -> UnitRect {
        let left = min(x, other.x)
        let top = min(y, other.y)
        return UnitRect(x: left, y: top, w: max(maxX, other.maxX) - left, h: max(maxY, other.maxY) - top)
    }
}

/// What chose the subject the crops are centred on (`probe.subjectStrategy`).
public enum SubjectStrategy: String, Codable, Sendable, Equatable, CaseIterable {
    /// Faces were found (profile `crop: smart`): the crops hold them.
    case faces
    /// libvips' attention (saliency): `crop: attention`, or `smart` when no face was found.
    case attention
    /// The region with most entropy (`crop: entropy`).
    case entropy
    /// The centre of the image (`crop: centre`).
    case centre
}
