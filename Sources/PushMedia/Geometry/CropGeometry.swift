import PushMediaModel

/// A size in pixels.
public struct PixelSize: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)×\(height)" }
}

/// A rectangle in pixels, origin top-left.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "\(width)×\(height)+\(x)+\(y)" }

    /// True when the point (in pixels, continuous coordinates) lies inside the rect.
    public func contains(x px: Double, y py: Double) -> Bool {
        px >= Double(x) && px <= Double(x + width) && py >= Double(y) && py <= Double(y + height)
    }
}

extension UnitRect {
    /// `rect` as a share of an image of `size`.
    public init(_ rect: PixelRect, in size: PixelSize) {
        let w = Double(size.width)
        let h = Double(size.height)
        self.init(x: Double(rect.x) / w, y: Double(rect.y) / h, width: Double(rect.width) / w, height: Double(rect.height) / h)
    }
}

/// The geometry of the two variants and the clipping rect. Pure functions, no pixels.
public enum CropGeometry {
    /// The largest rect of `aspect` that fits in `size` (at least 1×1).
    public static func largestCrop(in size: PixelSize, aspect: AspectRatio) -> PixelSize {
        let ratio = aspect.value
        if Double(size.width) / Double(size.height) >= ratio {
            let width = min(size.width, max(1, Int((Double(size.height) * ratio).rounded())))
            return PixelSize(width: width, height: size.height)
        } else {
            let height = min(size.height, max(1, Int((Double(size.width) / ratio).rounded())))
            return PixelSize(width: size.width, height: height)
        }
    }

    /// A rect of size `crop` inside `image`, centred as near as possible on `subject` (a point
    /// in pixels) and clamped inside the image. On each axis it also contains the first of
    /// `keeping` (rects in pixels of `image`, most generous first) that fits in the crop on that
    /// axis, moving off the subject only as far as that needs. Within that, it cuts as few of
    /// `avoiding` (other faces, in pixels) as it can, each one that fits in the crop being then
    /// either whole inside it or outside it, and among those places it takes the nearest the
    /// subject: no crop through a face that fits when the crop can move to avoid it.
    public static func place(
        _ crop: PixelSize, in image: PixelSize, around subject: (x: Double, y: Double), keeping boxes: [UnitRect] = [],
        avoiding others: [UnitRect] = []
    ) -> PixelRect {
        let width = min(crop.width, image.width)
        let height = min(crop.height, image.height)
        let xKeep = boxes.map { (low: $0.x, high: $0.maxX) }
        let yKeep = boxes.map { (low: $0.y, high: $0.maxY) }
        // One axis, then the other with the faces that overlap the first's span, then the first
        // again with those that overlap the second's (on a banner or a photo one axis has no room).
        func spans(
            overlapping span: (start: Int, length: Int), _ low: (UnitRect) -> Double, _ high: (UnitRect) -> Double,
            on axis: (low: (UnitRect) -> Double, high: (UnitRect) -> Double)
        ) -> [(low: Double, high: Double)] {
            others.filter { low($0) < Double(span.start + span.length) && high($0) > Double(span.start) }
                .map { (axis.low($0), axis.high($0)) }
        }
        var y = start(height, in: image.height, near: subject.y, keeping: yKeep)
        let x = start(
            width, in: image.width, near: subject.x, keeping: xKeep,
            avoiding: spans(overlapping: (y, height), \.y, \.maxY, on: (\.x, \.maxX)))
        y = start(
            height, in: image.height, near: subject.y, keeping: yKeep,
            avoiding: spans(overlapping: (x, width), \.x, \.maxX, on: (\.y, \.maxY)))
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    /// Start of a span `length` long in `0..<total`, as near as possible to centring it on
    /// `centre`, containing `[low, high]` of the first of `keeping` that fits; among those starts,
    /// one that cuts the fewest of `avoiding` (a span cut: overlapped but not contained; spans
    /// longer than `length` are ignored, they cannot be whole), the nearest the centre, then the
    /// one holding the most of them whole.
    static func start(
        _ length: Int, in total: Int, near centre: Double, keeping spans: [(low: Double, high: Double)],
        avoiding others: [(low: Double, high: Double)] = []
    ) -> Int {
        var lowest = 0
        var highest = max(0, total - length)
        for span in spans {
            let low = Int(max(0, min(Double(total), span.low)).rounded(.down))
            let high = Int(max(0, min(Double(total), span.high)).rounded(.up))
            if high - low <= length {
                lowest = max(lowest, high - length)
                highest = min(highest, low)
                break
            }
        }
        let ideal = min(max(lowest, Int((centre - Double(length) / 2).rounded())), highest)
        let avoided = others.map {
            (low: Int(max(0, min(Double(total), $0.low)).rounded(.down)), high: Int(max(0, min(Double(total), $0.high)).rounded(.up)))
        }.filter { $0.high > $0.low && $0.high - $0.low <= length }
        guard !avoided.isEmpty else { return ideal }
        /// The spans `start` cuts, and those it holds whole.
        func score(_ start: Int) -> (cuts: Int, holds: Int) {
            avoided.reduce((0, 0)) { score, span in
                let overlaps = start < span.high && start + length > span.low
                let holds = start <= span.low && start + length >= span.high
                return (score.0 + (overlaps && !holds ? 1 : 0), score.1 + (holds ? 1 : 0))
            }
        }
        // The fewest cuts is reached at the ideal or where some span starts or stops being cut;
        // between starts as near, the one holding more faces whole.
        var candidates = [ideal, lowest, highest]
        for span in avoided { candidates += [span.low - length, span.high - length, span.low, span.high] }
        return candidates.map { min(max($0, lowest), highest) }.min {
            let (a, b) = (score($0), score($1))
            return (a.cuts, abs($0 - ideal), -a.holds) < (b.cuts, abs($1 - ideal), -b.holds)
        } ?? ideal
    }

    /// The unit rect of the largest square inside an image of `size`, centred as near as possible
    /// on `subject` (pixels in that image), clamped inside it, and containing the first of
    /// `keeping` (pixels) that fits, axis by axis.
    public static func clipRect(
        in size: PixelSize, around subject: (x: Double, y: Double), keeping boxes: [UnitRect] = [],
        avoiding others: [UnitRect] = []
    ) -> UnitRect {
        let side = min(size.width, size.height)
        let square = place(PixelSize(width: side, height: side), in: size, around: subject, keeping: boxes, avoiding: others)
        return UnitRect(square, in: size)
    }
}

/// What to make of one image: output sizes first (from the header alone), then where to cut.
public struct ImagePlan: Sendable, Equatable {
    /// Oriented size of the source.
    public var source: PixelSize
    /// Size of the square thumbnail.
    public var thumbnail: PixelSize
    /// Size of the expanded variant.
    public var expanded: PixelSize
    /// The smallest decode size (oriented, aspect kept) from which both variants can be cut
    /// without upscaling: shrink-on-load may decode down to this.
    public var decode: PixelSize

    /// Output and decode sizes for a source of `source` pixels (after EXIF orientation).
    public init(source: PixelSize, profile: Profile) {
        self.source = source
        let aspect = profile.expanded.aspect
        let expandedCrop = CropGeometry.largestCrop(in: source, aspect: aspect)
        let expandedWidth = min(profile.expanded.maxWidth, expandedCrop.width)
        let expandedHeight = min(
            expandedCrop.height, max(1, Int((Double(expandedWidth) / aspect.value).rounded())))
        expanded = PixelSize(width: expandedWidth, height: expandedHeight)

        let side = min(source.width, source.height)
        let thumb = min(profile.thumbnail.size, side)
        thumbnail = PixelSize(width: thumb, height: thumb)

        // The decode must keep each crop at least as large as its output.
        let scale = min(
            1, max(Double(expandedWidth) / Double(expandedCrop.width), Double(thumb) / Double(side)))
        decode = PixelSize(
            width: min(source.width, max(1, Int((Double(source.width) * scale).rounded(.up)))),
            height: min(source.height, max(1, Int((Double(source.height) * scale).rounded(.up)))))
    }

    /// `size` scaled by one factor to fit inside `box`, as `vips_thumbnail` fits (never enlarged,
    /// each side rounded, at least 1 pixel).
    public static func fitted(_ size: PixelSize, inside box: PixelSize) -> PixelSize {
        let shrink = max(Double(size.width) / Double(max(1, box.width)), Double(size.height) / Double(max(1, box.height)))
        guard shrink > 1 else { return size }
        return PixelSize(
            width: max(1, Int((Double(size.width) / shrink).rounded())),
            height: max(1, Int((Double(size.height) / shrink).rounded())))
    }

    /// Where to cut both variants from a decoded image of `working` pixels, given the subject
    /// as a unit point, and the clipping rect of the thumbnail inside the expanded variant.
    /// `keeping` are unit rects (e.g. faces with a margin, then the faces alone) each crop and
    /// the clipping rect contain when they can: on each axis the first that fits is kept whole.
    /// `avoiding` are unit rects (the faces left out of the group) that none of them cuts when
    /// it can move to hold each whole or leave it out.
    public func placement(
        working: PixelSize, subject: UnitPoint, keeping boxes: [UnitRect] = [], avoiding others: [UnitRect] = [],
        aspect: AspectRatio
    ) -> Placement {
        let centre = (x: subject.x * Double(working.width), y: subject.y * Double(working.height))
        func inPixels(_ rects: [UnitRect]) -> [UnitRect] {
            rects.map {
                UnitRect(
                    x: $0.x * Double(working.width), y: $0.y * Double(working.height),
                    width: $0.width * Double(working.width), height: $0.height * Double(working.height))
            }
        }
        let inWorking = inPixels(boxes)
        let othersInWorking = inPixels(others)
        let expandedRect = CropGeometry.place(
            CropGeometry.largestCrop(in: working, aspect: aspect), in: working, around: centre, keeping: inWorking,
            avoiding: othersInWorking)
        let side = min(working.width, working.height)
        let thumbnailRect = CropGeometry.place(
            PixelSize(width: side, height: side), in: working, around: centre, keeping: inWorking, avoiding: othersInWorking)
        // The subject and the boxes in pixels of the expanded output.
        let scaleX = Double(expanded.width) / Double(expandedRect.width)
        let scaleY = Double(expanded.height) / Double(expandedRect.height)
        let inExpanded = (
            x: (centre.x - Double(expandedRect.x)) * scaleX, y: (centre.y - Double(expandedRect.y)) * scaleY
        )
        func inExpandedPixels(_ rects: [UnitRect]) -> [UnitRect] {
            rects.map {
                UnitRect(
                    x: ($0.x - Double(expandedRect.x)) * scaleX, y: ($0.y - Double(expandedRect.y)) * scaleY,
                    width: $0.width * scaleX, height: $0.height * scaleY)
            }
        }
        return Placement(
            expandedRect: expandedRect, thumbnailRect: thumbnailRect,
            clipRect: CropGeometry.clipRect(
                in: expanded, around: inExpanded, keeping: inExpandedPixels(inWorking),
                avoiding: inExpandedPixels(othersInWorking)))
    }

    /// Crops in the working image and the clipping rect.
    public struct Placement: Sendable, Equatable {
        public var expandedRect: PixelRect
        public var thumbnailRect: PixelRect
        public var clipRect: UnitRect
    }
}
