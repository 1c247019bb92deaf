import PushMediaModel

/// Where the Android image is cut from the decoded image. Pure geometry, no pixels.
///
/// Firebase's SDK (and Airship's, and Adobe's) shows one bitmap twice: centre-cropped as the
/// collapsed large icon and as the expanded big picture (`DisplayNotification.java`:
/// `setLargeIcon(bitmap)`, `bigPicture(bitmap).bigLargeIcon(null)`). So the subject must lie in the
/// centre square of the 2:1 window, not merely inside it. The window is the largest 2:1 rect that
/// has it there; near an edge that means a narrower window, down to `android.minWidth`. When no
/// window that wide holds the subject in its centre square, the window is the largest 2:1 rect
/// placed as the expanded image is (around the subject, faces whole), and ``subjectInCentreSquare``
/// says so.
public struct AndroidWindow: Sendable, Equatable {
    /// The window in pixels of the decoded image.
    public var rect: PixelRect
    /// The size of the Android image: the window at most `maxWidth` wide, never upscaled, half as tall.
    public var output: PixelSize
    /// True when the centre square of ``rect`` holds the subject: the tightest of the `keeping`
    /// boxes (the faces) when there are any, else the region around the subject point
    /// (``subjectBox(around:in:)``).
    public var subjectInCentreSquare: Bool

    /// Android's aspect: vendors ask for 2:1, and Braze scales a landscape big picture to exactly
    /// 2:1 (non-uniformly), so the image is made 2:1.
    public static let aspect = AspectRatio(width: 2, height: 1)

    /// The window for an image of `working` pixels. `subject` is in pixels of it; `keeping` are rects
    /// in pixels (the faces with a margin, then the faces alone: most generous first), `avoiding`
    /// the faces left out of the group, which the window holds whole or leaves out where it can.
    public static func plan(
        working: PixelSize, subject: (x: Double, y: Double), keeping boxes: [UnitRect] = [], avoiding others: [UnitRect] = [],
        minWidth: Int, maxWidth: Int
    ) -> AndroidWindow {
        let largest = CropGeometry.largestCrop(in: working, aspect: aspect)
        let target = boxes.last ?? subjectBox(around: subject, in: working)
        let narrowest = max(1, min(minWidth, largest.width))
        // Faces first: the most generous box that fits a centre square, then tighter ones; the
        // point's region only when there is no face (a face is never given up for the point).
        let candidates = boxes.isEmpty ? [target] : boxes
        for box in candidates {
            if let rect = window(for: box, in: working, largest: largest, narrowest: narrowest, subject: subject, others: others),
                holds(rect, target)
            {
                return AndroidWindow(rect: rect, output: outputSize(rect, maxWidth: maxWidth), subjectInCentreSquare: true)
            }
        }
        let rect = CropGeometry.place(largest, in: working, around: subject, keeping: boxes, avoiding: others)
        return AndroidWindow(rect: rect, output: outputSize(rect, maxWidth: maxWidth), subjectInCentreSquare: holds(rect, target))
    }

    /// ``plan(working:subject:keeping:avoiding:minWidth:maxWidth:)`` with the profile's widths,
    /// `subject` and the boxes as unit rects of `working`.
    public static func plan(
        working: PixelSize, subject: UnitPoint, keeping boxes: [UnitRect], avoiding others: [UnitRect], profile: Profile.Android
    ) -> AndroidWindow {
        func inPixels(_ rects: [UnitRect]) -> [UnitRect] {
            rects.map {
                UnitRect(
                    x: $0.x * Double(working.width), y: $0.y * Double(working.height),
                    width: $0.width * Double(working.width), height: $0.height * Double(working.height))
            }
        }
        return plan(
            working: working, subject: (subject.x * Double(working.width), subject.y * Double(working.height)),
            keeping: inPixels(boxes), avoiding: inPixels(others), minWidth: profile.minWidth, maxWidth: profile.maxWidth)
    }

    /// The region a subject point (attention, entropy, the centre) stands for: a square a quarter
    /// of the largest window's height, centred on it, clamped to the image. A bare point would let
    /// the widest window put it on the square's very edge, half the subject outside.
    public static func subjectBox(around subject: (x: Double, y: Double), in working: PixelSize) -> UnitRect {
        let side = Double(CropGeometry.largestCrop(in: working, aspect: aspect).height) / 4
        let x0 = max(0, min(Double(working.width), subject.x - side / 2))
        let x1 = max(0, min(Double(working.width), subject.x + side / 2))
        let y0 = max(0, min(Double(working.height), subject.y - side / 2))
        let y1 = max(0, min(Double(working.height), subject.y + side / 2))
        return UnitRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The centre square of `rect`: its full height, centred across its width (the whole rect when
    /// it is taller than wide).
    public static func centreSquare(of rect: PixelRect) -> UnitRect {
        let side = min(rect.width, rect.height)
        return UnitRect(
            x: Double(rect.x) + Double(rect.width - side) / 2, y: Double(rect.y) + Double(rect.height - side) / 2,
            width: Double(side), height: Double(side))
    }

    /// True when `box` (pixels) lies inside the centre square of `rect`.
    public static func holds(_ rect: PixelRect, _ box: UnitRect) -> Bool {
        let square = centreSquare(of: rect)
        let slack = 1e-9
        return box.x >= square.x - slack && box.maxX <= square.maxX + slack && box.y >= square.y - slack
            && box.maxY <= square.maxY + slack
    }

    /// The widest 2:1 window between `narrowest` and `largest` wide whose centre square holds
    /// `box`, placed near the subject (cutting as few of `others` as it can); nil when none does.
    static func window(
        for box: UnitRect, in working: PixelSize, largest: PixelSize, narrowest: Int, subject: (x: Double, y: Double),
        others: [UnitRect]
    ) -> PixelRect? {
        let low = max(0, min(Double(working.width), box.x))
        let high = max(0, min(Double(working.width), box.maxX))
        let top = Int(max(0, min(Double(working.height), box.y)).rounded(.down))
        let bottom = Int(max(0, min(Double(working.height), box.maxY)).rounded(.up))
        // Widest first; each width is an O(1) test: the window's start X must keep the box inside
        // the square [X + margin, X + margin + side] and the window inside the image.
        var width = largest.width
        while width >= narrowest {
            let height = windowHeight(width, in: working)
            let margin = Double(width - min(width, height)) / 2
            let lowestX = max(0, Int((high + margin).rounded(.up)) - width)
            let highestX = min(working.width - width, Int((low - margin).rounded(.down)))
            if lowestX <= highestX && bottom - top <= height {
                let y = CropGeometry.start(
                    height, in: working.height, near: subject.y, keeping: [(box.y, box.maxY)],
                    avoiding: others.map { ($0.y, $0.maxY) })
                let x = CropGeometry.start(
                    width, in: working.width, near: subject.x, keeping: [(low - margin, high + margin)],
                    avoiding: others.filter { $0.y < Double(y + height) && $0.maxY > Double(y) }.map { ($0.x, $0.maxX) })
                let rect = PixelRect(x: x, y: y, width: width, height: height)
                if holds(rect, box) { return rect }
            }
            width -= 1
        }
        return nil
    }

    /// The height of a window `width` wide: half of it (at least 1), never above the image.
    public static func windowHeight(_ width: Int, in working: PixelSize) -> Int {
        min(working.height, max(1, Int((Double(width) / aspect.value).rounded())))
    }

    /// The output size for `rect`: at most `maxWidth` wide, 2:1, never above the window's pixels.
    static func outputSize(_ rect: PixelRect, maxWidth: Int) -> PixelSize {
        let width = max(1, min(maxWidth, rect.width))
        let height = min(rect.height, max(1, Int((Double(width) / aspect.value).rounded())))
        return PixelSize(width: width, height: height)
    }
}
