import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Property tests of the Android window: random sources (1×1, 2×2, odd sizes, panoramas,
/// portraits) and subjects (points, faces with a margin, faces near the edges), against a
/// brute-force search of every window on small images.
@Suite("Android window")
struct AndroidWindowTests {
    struct Case: CustomStringConvertible {
        var working: PixelSize
        var subject: (x: Double, y: Double)
        /// Most generous first; the last is the faces alone.
        var boxes: [UnitRect]
        var others: [UnitRect]
        var minWidth: Int
        var description: String {
            "\(working) subject \(subject) boxes \(boxes.map { "\($0.x),\($0.y) \($0.width)x\($0.height)" }) minWidth \(minWidth)"
        }
    }

    /// Random cases; `maxSide` bounds the image so the brute force stays cheap where it runs.
    static func cases(count: Int, maxSide: Int, seed: UInt64) -> [Case] {
        var rng = SeededRandom(seed: seed)
        var sizes = [
            PixelSize(width: 1, height: 1), PixelSize(width: 2, height: 2), PixelSize(width: 2, height: 1),
            PixelSize(width: 3, height: 7), PixelSize(width: 7, height: 3), PixelSize(width: 100, height: 50),
            PixelSize(width: 101, height: 49),
        ].filter { $0.width <= maxSide && $0.height <= maxSide }
        for _ in 0..<count {
            sizes.append(PixelSize(width: Int.random(in: 1...maxSide, using: &rng), height: Int.random(in: 1...maxSide, using: &rng)))
        }
        return sizes.map { size in
            let w = Double(size.width)
            let h = Double(size.height)
            let minWidth = [1, 2, size.width / 3, size.width / 2, size.width, maxSide].randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                // A point anywhere, often at an edge.
                let x = [0, w, Double.random(in: 0...w, using: &rng), w * 0.05, w * 0.95].randomElement(using: &rng)!
                let y = Double.random(in: 0...h, using: &rng)
                return Case(working: size, subject: (x, y), boxes: [], others: [], minWidth: max(1, minWidth))
            }
            // A face, and the same face with a margin around it (clamped to the image).
            let fw = Double.random(in: 0...(w / 2), using: &rng)
            let fh = min(h, fw * Double.random(in: 0.8...1.3, using: &rng))
            let fx = Double.random(in: 0...(w - fw), using: &rng)
            let fy = Double.random(in: 0...(h - fh), using: &rng)
            let face = UnitRect(x: fx, y: fy, width: fw, height: fh)
            let mx = max(0, fx - fw / 4)
            let my = max(0, fy - fh / 4)
            let margin = UnitRect(x: mx, y: my, width: min(w, fx + fw * 1.25) - mx, height: min(h, fy + fh * 1.25) - my)
            var others: [UnitRect] = []
            if Bool.random(using: &rng) {
                let ow = Double.random(in: 0...(w / 4), using: &rng)
                others.append(
                    UnitRect(
                        x: Double.random(in: 0...(w - ow), using: &rng), y: Double.random(in: 0...max(0, h - ow), using: &rng),
                        width: ow, height: min(h, ow)))
            }
            return Case(
                working: size, subject: (face.x + face.width / 2, face.y + face.height / 2), boxes: [margin, face], others: others,
                minWidth: max(1, minWidth))
        }
    }

    static func plan(_ c: Case, maxWidth: Int = 1024) -> AndroidWindow {
        AndroidWindow.plan(
            working: c.working, subject: c.subject, keeping: c.boxes, avoiding: c.others, minWidth: c.minWidth, maxWidth: maxWidth)
    }

    /// The subject the centre square must hold: the faces alone, else the region around the point.
    static func target(_ c: Case) -> UnitRect {
        c.boxes.last ?? AndroidWindow.subjectBox(around: c.subject, in: c.working)
    }

    /// True when some 2:1 window of the allowed widths, anywhere in the image, holds the target
    /// in its centre square: every width, every start.
    static func bruteForceFits(_ c: Case) -> Bool {
        let largest = CropGeometry.largestCrop(in: c.working, aspect: AndroidWindow.aspect)
        let narrowest = max(1, min(c.minWidth, largest.width))
        let box = target(c)
        for width in stride(from: largest.width, through: narrowest, by: -1) {
            let height = AndroidWindow.windowHeight(width, in: c.working)
            for y in 0...(c.working.height - height) {
                for x in 0...(c.working.width - width)
                where AndroidWindow.holds(PixelRect(x: x, y: y, width: width, height: height), box) {
                    return true
                }
            }
        }
        return false
    }

    @Test("the window is 2:1, inside the image, never narrower than minWidth allows, and its output never upscales")
    func shape() {
        for c in Self.cases(count: 800, maxSide: 9000, seed: 52) {
            let window = Self.plan(c)
            let r = window.rect
            let largest = CropGeometry.largestCrop(in: c.working, aspect: AndroidWindow.aspect)
            #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= c.working.width && r.y + r.height <= c.working.height, "\(c) -> \(r)")
            #expect(r.width >= min(c.minWidth, largest.width) && r.width <= largest.width, "\(c) -> \(r)")
            #expect(r.height == AndroidWindow.windowHeight(r.width, in: c.working), "\(c) -> \(r)")
            #expect(window.output.width <= min(1024, r.width) && window.output.height <= r.height, "\(c) -> \(window.output)")
            #expect(window.output.width >= 1 && window.output.height >= 1)
            if window.output.width >= 4 {
                #expect(abs(Double(window.output.width) / Double(window.output.height) - 2) <= 2.0 / Double(window.output.height) + 1e-9)
            }
            // A large source reaches the maximum width exactly (when the window is not shrunk below it).
            if r.width >= 1024 { #expect(window.output == PixelSize(width: 1024, height: 512), "\(c) -> \(window.output)") }
        }
    }

    @Test("what it reports is true: the centre square holds the faces (or the point's region) exactly when it says so")
    func reportIsTrue() {
        for c in Self.cases(count: 1500, maxSide: 9000, seed: 5252) {
            let window = Self.plan(c)
            #expect(window.subjectInCentreSquare == AndroidWindow.holds(window.rect, Self.target(c)), "\(c) -> \(window.rect)")
        }
    }

    @Test("the centre square holds the subject wherever some 2:1 window allows it (brute force over every window)")
    func fitsWhereverGeometryAllows() {
        var fitted = 0
        let cases = Self.cases(count: 400, maxSide: 40, seed: 99)
        for c in cases {
            let expected = Self.bruteForceFits(c)
            let window = Self.plan(c)
            #expect(window.subjectInCentreSquare == expected, "\(c) -> \(window.rect)")
            if expected { fitted += 1 }
        }
        // The cases exercise both outcomes.
        #expect(fitted > 0 && fitted < cases.count, "\(fitted) of \(cases.count) fit")
    }

    @Test("faces are never cut when the largest window can hold them whole, and the widest fitting window is chosen")
    func facesWholeAndWidest() {
        for c in Self.cases(count: 1500, maxSide: 6000, seed: 777) where !c.boxes.isEmpty {
            let window = Self.plan(c)
            let face = c.boxes.last!
            let largest = CropGeometry.largestCrop(in: c.working, aspect: AndroidWindow.aspect)
            if face.width <= Double(largest.width) - 1 && face.height <= Double(largest.height) - 1 {
                let r = window.rect
                #expect(
                    face.x >= Double(r.x) - 1e-9 && face.maxX <= Double(r.x + r.width) + 1e-9 && face.y >= Double(r.y) - 1e-9
                        && face.maxY <= Double(r.y + r.height) + 1e-9, "\(c) -> \(r)")
            }
            // Shrunk only to put the subject in the centre square; never when the largest window does.
            if !window.subjectInCentreSquare { #expect(window.rect.width == largest.width, "\(c) -> \(window.rect)") }
        }
    }

    @Test("a point subject stands for a region a quarter of the window's height: the widest window does not put it on the square's edge")
    func pointRegion() {
        // 3000×1500 (the largest window), point at x 500: its region 312.5…687.5 must be in the square.
        let window = AndroidWindow.plan(working: PixelSize(width: 3000, height: 1500), subject: (500, 750), minWidth: 600, maxWidth: 1024)
        #expect(window.subjectInCentreSquare)
        #expect(window.rect.x == 0 && window.rect.width == 1251 && window.rect.height == 626, "\(window.rect)")
        let square = AndroidWindow.centreSquare(of: window.rect)
        #expect(square.x <= 312.5 && square.maxX >= 687.5)
    }

    @Test("a subject near an edge of a 3:2 photo: the window shrinks toward it, down to minWidth and no further")
    func shrinksTowardEdge() {
        let photo = PixelSize(width: 3000, height: 2000)
        // Largest 2:1 window: 3000×1500, centre square x 750…2250. A face at x 200…400: a window
        // starting at 0 has it in its square up to 801 wide (801×401, square 200…601).
        let face = UnitRect(x: 200, y: 800, width: 200, height: 200)
        let window = AndroidWindow.plan(
            working: photo, subject: (300, 900), keeping: [face], minWidth: 600, maxWidth: 1024)
        #expect(window.subjectInCentreSquare)
        #expect(window.rect == PixelRect(x: 0, y: 700, width: 801, height: 401), "\(window.rect)")
        #expect(window.output == PixelSize(width: 801, height: 401))
        #expect(AndroidWindow.holds(window.rect, face))
        // The same face with a minimum width of 1000: no window holds it in the centre square.
        let wide = AndroidWindow.plan(working: photo, subject: (300, 900), keeping: [face], minWidth: 1000, maxWidth: 1024)
        #expect(!wide.subjectInCentreSquare)
        #expect(wide.rect.width == 3000 && wide.rect.x == 0, "\(wide.rect)")
        #expect(wide.output == PixelSize(width: 1024, height: 512))
    }

    @Test("tiny sources: 1×1, 2×2, 100×50 give themselves, never upscaled")
    func tiny() {
        for (size, out) in [
            (PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)), (PixelSize(width: 2, height: 2), PixelSize(width: 2, height: 1)),
            (PixelSize(width: 100, height: 50), PixelSize(width: 100, height: 50)),
        ] {
            let window = AndroidWindow.plan(
                working: size, subject: (Double(size.width) / 2, Double(size.height) / 2), minWidth: 600, maxWidth: 1024)
            #expect(window.output == out, "\(size) -> \(window.output)")
            // A 2×2 source's centre lies on the border of both 2×1 windows: no window holds it.
            let box = AndroidWindow.subjectBox(around: (Double(size.width) / 2, Double(size.height) / 2), in: size)
            #expect(window.subjectInCentreSquare == (size.height != 2), "\(size)")
            #expect(AndroidWindow.holds(window.rect, box) == window.subjectInCentreSquare, "\(size)")
        }
    }
}
