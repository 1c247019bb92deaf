import PushMediaModel

/// The subject when faces were found: pure, no pixels.
///
/// The crops hold the largest face (measured, ``FaceSizePlan``: the face nearest the camera, or the
/// one the picture is about), then as many of the others as fit with it in one square of the
/// image's short side (the thumbnail's): the most faces, then the most face area. No face left out
/// would fit with the group (the group is as large as any square holding the largest face can
/// hold); a larger group elsewhere in the image does not displace the largest face. The subject point is the
/// centre of those faces weighted by their area, so a crop that has room to spare leans towards
/// the big ones. The faces come with a margin (hair, chin) when that still fits, else bare.
public enum FaceSubject {
    /// Where to centre the crops, and what they must hold.
    public struct Choice: Sendable, Equatable {
        /// The area-weighted centre of the chosen faces (unit point of the image).
        public var point: UnitPoint
        /// The chosen faces with a margin, then the bare faces (unit rects): each crop holds the
        /// first of these that fits in it, axis by axis.
        public var keep: [UnitRect]
        /// The faces chosen, largest first.
        public var faces: [UnitRect]
        /// The faces left out (not in the group that fits), which the crops should hold whole or
        /// leave out, not cut, when they can.
        public var others: [UnitRect] = []
    }

    /// Share of a face's size added on every side (forehead and hair above, chin below).
    static let margin = 0.25

    /// The choice for `faces` (unit rects) in an image of `size` pixels; nil when there are none.
    public static func choose(faces: [UnitRect], in size: PixelSize) -> Choice? {
        let width = Double(size.width)
        let height = Double(size.height)
        let side = Double(min(size.width, size.height))
        func fits(_ rect: UnitRect) -> Bool { rect.width * width <= side + 1e-9 && rect.height * height <= side + 1e-9 }
        let bySize = faces.filter { $0.width > 0 && $0.height > 0 }.sorted { $0.width * $0.height > $1.width * $1.height }
        guard let largest = bySize.first else { return nil }
        let chosen = largestGroup(bySize, width: width, height: height, side: side) ?? [largest]
        let box = chosen.dropFirst().reduce(chosen[0]) { $0.union($1) }
        let weights = chosen.map { $0.width * $0.height }
        let total = weights.reduce(0, +)
        let point = UnitPoint(
            x: zip(chosen, weights).map { $0.centre.x * $1 }.reduce(0, +) / total,
            y: zip(chosen, weights).map { $0.centre.y * $1 }.reduce(0, +) / total)
        let padded = chosen.map(withMargin).reduce(withMargin(largest)) { $0.union($1) }
        let keep = fits(padded) && padded != box ? [padded, box] : [box]
        return Choice(point: point, keep: keep, faces: chosen, others: bySize.filter { !chosen.contains($0) })
    }

    /// The faces (largest first) inside the square of side `side` pixels that holds the largest
    /// (`bySize[0]`) and, with it, the most of them, then the most face area (the first such square
    /// met, trying every square whose left edge is a face's left and whose top edge is a face's
    /// top: any group that fits lies in one of those), largest first; nil when the largest face
    /// does not fit alone.
    static func largestGroup(_ bySize: [UnitRect], width: Double, height: Double, side: Double) -> [UnitRect]? {
        let slack = 1e-9
        var best: (faces: [UnitRect], area: Double)?
        for left in bySize.map(\.x) {
            for top in bySize.map(\.y) {
                let inside = bySize.filter {
                    $0.x >= left - slack && $0.y >= top - slack && ($0.maxX - left) * width <= side + slack
                        && ($0.maxY - top) * height <= side + slack
                }
                guard let first = inside.first, first == bySize[0] else { continue }
                let area = inside.reduce(0.0) { $0 + $1.width * $1.height }
                if let current = best,
                    current.faces.count > inside.count
                        || (current.faces.count == inside.count && current.area >= area)
                {
                    continue
                }
                best = (inside, area)
            }
        }
        return best?.faces
    }

    /// `face` grown by ``margin`` of its width at each side and of its height above and below, clamped
    /// inside the image.
    static func withMargin(_ face: UnitRect) -> UnitRect {
        let left = max(0, face.x - face.width * margin)
        let top = max(0, face.y - face.height * margin)
        let right = min(1, face.maxX + face.width * margin)
        let bottom = min(1, face.maxY + face.height * margin)
        return UnitRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
