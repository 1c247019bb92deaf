import Foundation

/// Where dlib's CNN face detector (``FaceDetector/searchNet(_:plan:)``, `CFaceNet`) looks for the
/// faces the frontal HOG search missed in a banner: pure, no pixels.
///
/// The net finds faces the HOG model does not (turned, small, unevenly lit), but costs about
/// ``microsecondsPerPixel`` of CPU per pixel it reads: a whole 2400×800 banner would take seconds.
/// So it reads only the places a missed face could be: the first search's near misses (windows
/// scoring under ``FaceSearchSettings/minimumScore`` but over ``nearMissScore``), then the
/// skin-coloured areas inside the parts the first search read (the same map as
/// ``FaceSearchPlan``), less the skin of the faces already found. Each region is read at the
/// scale that brings a face of the smallest size looked for to the net's window (``window``),
/// nearest misses first, then the largest areas, until the pixels the time budget pays for
/// (``pixels(for:)``) are spent; the region that would pass it is read at a lower scale when that
/// still finds faces of ``lowestScaleShare`` of the size wanted, else left out. The budget is the
/// profile's `limits.faceNetMilliseconds`; C stops at a deadline derived from it
/// (``deadline(for:)``) should the CPU be slower than measured.
public struct FaceNetPlan: Sendable, Equatable {
    /// One region, in pixels of the image, read at `scale` times its size.
    public struct Region: Sendable, Equatable {
        public var rect: PixelRect
        public var scale: Double
        public init(rect: PixelRect, scale: Double) {
            self.rect = rect
            self.scale = scale
        }
        /// Pixels the net reads for it (before its own pyramid).
        public var scaledArea: Double { Double(rect.width * rect.height) * scale * scale }
    }

    /// The regions, in the order they are read.
    public var regions: [Region]

    public init(regions: [Region]) { self.regions = regions }

    /// Face width, in pixels the net reads, from which it finds faces: measured on the group
    /// banners (a 65 px face found at scale 1, a 55 px one only at 1.3; dlib trained the model on
    /// 80 px windows), with some room.
    public static let window = 70.0
    /// CPU per pixel read, in microseconds, pyramid included: 3.5–3.9 on one core of the bench
    /// machine (docs/benchmarks/faces.md, "The second detector"), rounded up. Since the
    /// convolutions are blocked the net costs 2.0–2.4; the plan keeps the old figure until the
    /// tests that run it under load no longer meet the item's time limit (same document).
    public static let microsecondsPerPixel = 4.0
    /// The lowest score of the first search's windows that are near misses worth a second look.
    public static let nearMissScore = -0.4
    /// Each near miss is read with this share of its width added on every side.
    public static let nearMissMargin = 0.5
    /// Cells of margin around each skin area: the net wants some of the head around a face's skin.
    public static let margin = 1
    /// A region may be read at a lower scale than wanted, when the budget leaves too little, down
    /// to this share of it (faces this much larger than the smallest looked for are still found).
    public static let lowestScaleShare = 0.6
    /// Faces found within this share of their size of a face already found are the same face.
    static let sameFace = 0.3
    /// How many times the budget the net may run before C stops it between regions: the plan
    /// keeps to the budget on the measured CPU; the deadline only bounds a much slower one.
    public static let deadlineSlack = 4.0

    /// Pixels the net may read in `milliseconds` of CPU.
    public static func pixels(for milliseconds: Double) -> Double {
        max(0, milliseconds) * 1000 / microsecondsPerPixel
    }

    /// How long after it starts the net is stopped (between regions) with a budget of
    /// `milliseconds`.
    public static func deadline(for milliseconds: Double) -> Duration {
        .microseconds(Int64((max(0, milliseconds) * 1000 * deadlineSlack).rounded()))
    }

    /// The plan for an image of `image` pixels (a banner, ``FaceSearchPlan/looksAgain(at:)``) with
    /// the cell map `map`, the faces already found (`found`, pixels of the image), the first
    /// search's near misses (`nearMisses`, pixels), looking for faces from `smallestFace` pixels,
    /// within `milliseconds` of CPU. Nil when there is nothing to read: not a banner, no budget, no
    /// near miss and no skin left outside the faces found.
    public static func plan(
        cells map: FaceSearchPlan.CellMap, image: PixelSize, found: [PixelRect], nearMisses: [PixelRect],
        smallestFace: Double, milliseconds: Double
    ) -> FaceNetPlan? {
        guard milliseconds > 0, smallestFace > 0, map.isWhole, FaceSearchPlan.looksAgain(at: image) else { return nil }
        let scale = min(16, window / smallestFace)
        let misses = nearMisses.filter { miss in !found.contains { overlapShare(miss, $0) > sameFace } }.map {
            grown($0, by: nearMissMargin, in: image)
        }
        // Skin inside the dense blocks the first search read, less the cells under faces found.
        let dense = FaceSearchPlan.denseBlocks(of: map.searchable, columns: map.columns, rows: map.rows)
        var skin = zip(map.skin, dense).map { $0 && $1 }
        for face in found.map({ grown($0, by: FaceSubject.margin, in: image) }) {
            let left = max(0, Int(Double(face.x) / map.cell))
            let top = max(0, Int(Double(face.y) / map.cell))
            let right = min(map.columns, Int((Double(face.x + face.width) / map.cell).rounded(.up)))
            let bottom = min(map.rows, Int((Double(face.y + face.height) / map.cell).rounded(.up)))
            guard right > left, bottom > top else { continue }
            for y in top..<bottom { for x in left..<right { skin[y * map.columns + x] = false } }
        }
        let areas = FaceSearchPlan.regions(of: skin, in: map, image: image, margin: margin)
            .map { atLeast($0, side: window / scale, in: image) }
            .sorted { $0.width * $0.height > $1.width * $1.height }
        // Near misses first (the first search nearly found a face there), then the largest areas.
        var left = pixels(for: milliseconds)
        var regions: [Region] = []
        for rect in FaceSearchPlan.merged(misses) + areas.filter({ a in !misses.contains { FaceSearchPlan.overlap($0, a) } }) {
            let area = Double(rect.width * rect.height)
            guard area > 0 else { continue }
            var region = Region(rect: rect, scale: scale)
            if region.scaledArea > left {
                let lowered = (left / area).squareRoot()
                guard lowered >= scale * lowestScaleShare else { continue }
                region.scale = lowered
            }
            left -= region.scaledArea
            regions.append(region)
        }
        return regions.isEmpty ? nil : FaceNetPlan(regions: regions)
    }

    /// `faces` (pixels) without those that are, by ``sameFace``, one of `found`, or of a surer one
    /// of `faces` before them (surest first).
    public static func newFaces(_ faces: [PixelRect], besides found: [PixelRect]) -> [PixelRect] {
        var kept: [PixelRect] = []
        for face in faces where !(found + kept).contains(where: { overlapShare(face, $0) > sameFace }) {
            kept.append(face)
        }
        return kept
    }

    /// The area two rects share over the smaller one's.
    static func overlapShare(_ a: PixelRect, _ b: PixelRect) -> Double {
        let width = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
        let height = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        guard width > 0, height > 0 else { return 0 }
        return Double(width * height) / Double(max(1, min(a.width * a.height, b.width * b.height)))
    }

    /// `rect` grown by `share` of its width and height on every side, clamped inside `image`.
    static func grown(_ rect: PixelRect, by share: Double, in image: PixelSize) -> PixelRect {
        let dx = Int((Double(rect.width) * share).rounded())
        let dy = Int((Double(rect.height) * share).rounded())
        let left = max(0, rect.x - dx)
        let top = max(0, rect.y - dy)
        let right = min(image.width, rect.x + rect.width + dx)
        let bottom = min(image.height, rect.y + rect.height + dy)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// `rect` grown about its centre to at least `side` pixels across and down (the net's window at
    /// the scale read), kept inside `image` (as far as it is that large).
    static func atLeast(_ rect: PixelRect, side: Double, in image: PixelSize) -> PixelRect {
        let wanted = Int(side.rounded(.up))
        // One axis: (start, length) of `length` pixels from `start`, in `0..<limit`.
        func span(_ start: Int, _ length: Int, _ limit: Int) -> (Int, Int) {
            guard length < wanted else { return (start, length) }
            let grown = min(limit, wanted)
            let centre = start + length / 2
            return (min(max(0, centre - grown / 2), limit - grown), grown)
        }
        let (x, width) = span(rect.x, rect.width, image.width)
        let (y, height) = span(rect.y, rect.height, image.height)
        return PixelRect(x: x, y: y, width: width, height: height)
    }
}
