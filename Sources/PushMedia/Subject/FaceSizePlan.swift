import Foundation

/// A face's real size, from the detections themselves: pure, no pixels.
///
/// The HOG search reports each face at the size of the pyramid level it was found on (its 80 px
/// window over that level's scale: 88, 151, 200 or 250 px of a banner, never between), and the net
/// at its own pyramid's; so of four faces of 116–125 px any may come out largest. To measure one,
/// the area around its box (``context`` of its size on every side) is searched again on one level
/// only, at each of the scales that bring a face of ``steps`` times the box's width to the
/// window; the detections that are the same face (``sameFace``) give its size (``measured(_:found:)``). A face no search finds again keeps the box it came with.
public enum FaceSizePlan {
    /// Candidate face widths, as shares of the reported box's width, 0.6–1.4 in 4 % steps: the
    /// pyramid's levels are 4/3 apart, so a face lies within 0.75–1.33 of the box of the level that
    /// found it, and the range reaches past that on both sides so that the scales a face is found
    /// at lie inside it (0.72–1.32 cut them off on one side: of four faces of 116–125 px, the
    /// largest was measured largest in 18 of 20 banners, now 19; docs/benchmarks/faces.md).
    public static let steps: [Double] = stride(from: 0.60, through: 1.4001, by: 0.04).map { ($0 * 100).rounded() / 100 }
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

    /// `face` measured from `found` (each with its score, pixels of the image): of the detections
    /// that are the same face, the mean of their widths and of their heights, geometric, weighted
    /// by score (a face is found over a range of scales around its own; the surest alone wavers by
    /// a step or two), centred on the surest; `face` itself when none is the same face.
    public static func measured(_ face: PixelRect, found: [(rect: PixelRect, score: Double)]) -> PixelRect {
        let same = found.filter { FaceNetPlan.overlapShare($0.rect, face) >= sameFace }
        guard var best = same.first else { return face }
        for candidate in same.dropFirst() where candidate.score > best.score { best = candidate }
        let weights = same.map { max(0, $0.score) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return best.rect }
        func mean(_ side: (PixelRect) -> Int) -> Double {
            exp(zip(same, weights).map { log(Double(side($0.rect))) * $1 }.reduce(0, +) / total)
        }
        let width = Int(mean(\.width).rounded())
        let height = Int(mean(\.height).rounded())
        let centreX = 2 * best.rect.x + best.rect.width
        let centreY = 2 * best.rect.y + best.rect.height
        return PixelRect(x: (centreX - width) / 2, y: (centreY - height) / 2, width: width, height: height)
    }
}
