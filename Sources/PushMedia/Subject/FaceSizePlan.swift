import Foundation

/// A face's real size, from the detections themselves: pure, no pixels.
///
/// The HOG search reports each face at the size of the pyramid level it was found on (its 80 px
/// window over that level's scale: 88, 151, 200 or 250 px of a banner, never between), and the net
/// at its own pyramid's; so of four faces of 116–125 px any may come out largest. To measure one,
/// the area around its box (``context`` of its size on every side) is searched again on one level
/// only, at each of the scales that bring a face of ``steps`` times the box's width to the
/// window; the box of the surest detection that is the same face (``sameFace``) is its size, to
/// ~4 %. A face no search finds again keeps the box it came with.
public enum FaceSizePlan {
    /// Candidate face widths, as shares of the reported box's width: the pyramid's levels are 4/3
    /// apart, so a face lies within 0.75–1.33 of the box of the level that found it (0.72–1.32 in 4 % steps).
    public static let steps: [Double] = stride(from: 0.72, through: 1.3401, by: 0.04).map { ($0 * 100).rounded() / 100 }
    /// Share of the box's size added on every side of the area searched again.
    public static let context = 0.5
    /// A detection is the same face when it shares this much of the smaller box's area.
    static let sameFace = 0.5

    /// One search: `region` (pixels of the image) read at `scale`, one pyramid level.
    public struct Search: Sendable, Equatable {
        public var region: PixelRect
        public var scale: Double
    }

    /// The searches that measure `face` (pixels of an image of `image` pixels): one per step, the
    /// smallest candidate first. Scales above 16 (a face under 5 px) are left out.
    public static func searches(for face: PixelRect, in image: PixelSize) -> [Search] {
        guard face.width > 0, face.height > 0 else { return [] }
        let region = FaceNetPlan.grown(face, by: context, in: image)
        return steps.compactMap { step in
            let scale = FaceSearchPlan.window / (Double(face.width) * step)
            return scale <= 16 ? Search(region: region, scale: scale) : nil
        }
    }

    /// `face` measured: the surest of `found` (each with its score, pixels of the image) that is the
    /// same face, or `face` itself when none is.
    public static func measured(_ face: PixelRect, found: [(rect: PixelRect, score: Double)]) -> PixelRect {
        found.filter { FaceNetPlan.overlapShare($0.rect, face) >= sameFace }.max { $0.score < $1.score }?.rect ?? face
    }
}
