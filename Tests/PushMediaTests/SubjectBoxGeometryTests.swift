import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Property tests of the crops when the subject is a box (faces): both crops and the clipping
/// rect hold the box whenever it fits in them, and stay valid whatever the box.
@Suite("Crop geometry around a subject box")
struct SubjectBoxGeometryTests {

    /// A random unit rect inside the image: sometimes tiny, sometimes larger than any crop.
    static func box(_ rng: inout SeededRandom) -> UnitRect {
        let w = Double.random(in: 0.001...1, using: &rng) * (Bool.random(using: &rng) ? 0.3 : 1)
        let h = Double.random(in: 0.001...1, using: &rng) * (Bool.random(using: &rng) ? 0.3 : 1)
        return UnitRect(
            x: Double.random(in: 0...(1 - w), using: &rng), y: Double.random(in: 0...(1 - h), using: &rng), width: w, height: h)
    }

    /// The box's span in pixels on one axis, as the geometry rounds it (outwards).
    static func span(_ low: Double, _ high: Double, _ total: Int) -> (low: Int, high: Int) {
        (Int((low * Double(total)).rounded(.down)), Int((high * Double(total)).rounded(.up)))
    }

    /// True when `rect` holds `box` (unit rect of `size`) on every axis where the box fits.
    static func holds(_ rect: PixelRect, _ box: UnitRect, in size: PixelSize) -> (ok: Bool, fits: Bool) {
        let x = span(box.x, box.maxX, size.width)
        let y = span(box.y, box.maxY, size.height)
        let fitsX = x.high - x.low <= rect.width
        let fitsY = y.high - y.low <= rect.height
        let okX = !fitsX || (rect.x <= x.low && rect.x + rect.width >= x.high)
        let okY = !fitsY || (rect.y <= y.low && rect.y + rect.height >= y.high)
        return (okX && okY, fitsX && fitsY)
    }

    static let aspects = [
        AspectRatio(width: 2, height: 1), AspectRatio(width: 1, height: 1), AspectRatio(width: 3, height: 1), AspectRatio(width: 1, height: 2),
    ]

    @Test("both crops lie inside the image and hold the box whenever it fits; the clipping rect stays valid")
    func cropsHoldTheBox() {
        var rng = SeededRandom(seed: 19)
        var held = 0
        for size in CropGeometryTests.sizes(count: 800) {
            let aspect = Self.aspects[Int.random(in: 0..<Self.aspects.count, using: &rng)]
            let profile = Profile(expanded: .init(aspect: aspect, maxWidth: 1200))
            let plan = ImagePlan(source: size, profile: profile)
            let box = Self.box(&rng)
            // The subject point anywhere in the box (faces weighted by size lie inside their union).
            let subject = UnitPoint(
                x: box.x + box.width * Double.random(in: 0...1, using: &rng), y: box.y + box.height * Double.random(in: 0...1, using: &rng))
            let p = plan.placement(working: size, subject: subject, keeping: [box], aspect: aspect)
            for rect in [p.expandedRect, p.thumbnailRect] {
                #expect(rect.x >= 0 && rect.y >= 0 && rect.width >= 1 && rect.height >= 1, "\(size) \(rect)")
                #expect(rect.x + rect.width <= size.width && rect.y + rect.height <= size.height, "\(size) \(rect)")
                let result = Self.holds(rect, box, in: size)
                #expect(result.ok, "\(size) \(aspect) box \(box) not held by \(rect)")
                if result.fits { held += 1 }
            }
            let clip = p.clipRect
            #expect(clip.x >= 0 && clip.y >= 0 && clip.width > 0 && clip.height > 0, "\(clip)")
            #expect(clip.x + clip.width <= 1 + 1e-9 && clip.y + clip.height <= 1 + 1e-9, "\(clip)")
            // The box in the expanded output's pixels: held by the clipping rect when it fits.
            let e = p.expandedRect
            let inExpanded = (
                x0: (box.x * Double(size.width) - Double(e.x)) * Double(plan.expanded.width) / Double(e.width),
                x1: (box.maxX * Double(size.width) - Double(e.x)) * Double(plan.expanded.width) / Double(e.width),
                y0: (box.y * Double(size.height) - Double(e.y)) * Double(plan.expanded.height) / Double(e.height),
                y1: (box.maxY * Double(size.height) - Double(e.y)) * Double(plan.expanded.height) / Double(e.height)
            )
            let side = Double(min(plan.expanded.width, plan.expanded.height))
            let insideExpanded = Self.holds(e, box, in: size).fits
            if insideExpanded {
                let w = Double(plan.expanded.width)
                let h = Double(plan.expanded.height)
                if inExpanded.x1.rounded(.up) - inExpanded.x0.rounded(.down) <= side {
                    #expect(clip.x * w <= inExpanded.x0 + 1e-6 && (clip.x + clip.width) * w >= inExpanded.x1 - 1e-6, "\(size) \(box) \(clip)")
                }
                if inExpanded.y1.rounded(.up) - inExpanded.y0.rounded(.down) <= side {
                    #expect(clip.y * h <= inExpanded.y0 + 1e-6 && (clip.y + clip.height) * h >= inExpanded.y1 - 1e-6, "\(size) \(box) \(clip)")
                }
            }
        }
        #expect(held > 500, "too few cases where the box fits: \(held)")
    }

    @Test("a box centred on the subject that fits changes nothing: the crops were already centred on it")
    func noMoveWhenCentred() {
        var rng = SeededRandom(seed: 7)
        for size in CropGeometryTests.sizes(count: 300) {
            let side = min(size.width, size.height)
            let w = Double(Int.random(in: 1...side, using: &rng)) / Double(size.width) * 0.9
            let h = Double(Int.random(in: 1...side, using: &rng)) / Double(size.height) * 0.5
            let box = UnitRect(x: Double.random(in: 0...(1 - w), using: &rng), y: Double.random(in: 0...(1 - h), using: &rng), width: w, height: h)
            let square = PixelSize(width: side, height: side)
            let centre = (x: box.centre.x * Double(size.width), y: box.centre.y * Double(size.height))
            let pixels = UnitRect(
                x: box.x * Double(size.width), y: box.y * Double(size.height), width: w * Double(size.width), height: h * Double(size.height))
            let plain = CropGeometry.place(square, in: size, around: centre)
            let kept = CropGeometry.place(square, in: size, around: centre, keeping: [pixels])
            // Rounding may move it by one pixel, never more.
            #expect(abs(plain.x - kept.x) <= 1 && abs(plain.y - kept.y) <= 1, "\(size) \(box): \(plain) vs \(kept)")
        }
    }

    @Test("the first box that fits wins: the margin when it fits, else the bare face")
    func firstFittingBox() {
        let size = PixelSize(width: 3000, height: 1000)
        let square = PixelSize(width: 1000, height: 1000)
        let face = UnitRect(x: 2500, y: 100, width: 400, height: 400)
        let margin = UnitRect(x: 2400, y: 0, width: 600, height: 600)
        let tooWide = UnitRect(x: 1500, y: 0, width: 1500, height: 600)
        // Subject far left: the crop moves right only as far as the box needs.
        let near = CropGeometry.place(square, in: size, around: (x: 100, y: 500), keeping: [margin, face])
        #expect(near.x == 2000)
        let bare = CropGeometry.place(square, in: size, around: (x: 100, y: 500), keeping: [tooWide, face])
        #expect(bare.x == 1900)
        let none = CropGeometry.place(square, in: size, around: (x: 100, y: 500), keeping: [tooWide])
        #expect(none.x == 0)
    }

    @Test("a face left out of the group is held whole or left out, not cut, when the crop can move: a banner's square beside a group")
    func otherFaceNotCut() {
        let size = PixelSize(width: 3000, height: 1000)
        let square = PixelSize(width: 1000, height: 1000)
        let group = UnitRect(x: 1100, y: 300, width: 500, height: 200)
        // Centred on the group (x 1350): the square spans 850–1850 and cuts a face at 1800–1900.
        let other = UnitRect(x: 1800, y: 350, width: 100, height: 100)
        #expect(CropGeometry.place(square, in: size, around: (x: 1350, y: 400), keeping: [group]).x == 850)
        let moved = CropGeometry.place(square, in: size, around: (x: 1350, y: 400), keeping: [group], avoiding: [other])
        // The nearest starts that do not cut it, both 50 px off and holding the group: 800 (it
        // ends where the face begins) or 900 (it holds the face whole), which wins.
        #expect(moved.x == 900)
        // One that cannot be held with the group (at 2200–2300) is left out: the square ends at its left edge.
        let far = UnitRect(x: 1550, y: 350, width: 100, height: 100)
        let beyond = UnitRect(x: 2050, y: 350, width: 100, height: 100)
        let left = CropGeometry.place(square, in: size, around: (x: 1350, y: 400), keeping: [group], avoiding: [far, beyond])
        #expect(left.x + left.width <= 2050 && left.x <= 1550)
        // A face over the image's other axis only (above the crop's rows): not in the way.
        let wide = PixelSize(width: 2000, height: 500)
        let above = UnitRect(x: 1800, y: 0, width: 100, height: 100)
        #expect(CropGeometry.place(wide, in: PixelSize(width: 3000, height: 1000), around: (x: 1350, y: 700), avoiding: [above]).x == 350)
        // A face wider than the crop cannot be whole: ignored.
        let huge = UnitRect(x: 1700, y: 0, width: 1100, height: 1000)
        #expect(CropGeometry.place(square, in: size, around: (x: 1350, y: 400), keeping: [group], avoiding: [huge]).x == 850)
    }

    @Test("for random spans: the start keeps the box, cuts the fewest other faces any start could, and is the nearest the centre among those")
    func randomAvoidance() {
        var rng = SeededRandom(seed: 4141)
        for _ in 0..<2000 {
            let total = Int.random(in: 1...400, using: &rng)
            let length = Int.random(in: 1...total, using: &rng)
            let centre = Double.random(in: -20...Double(total + 20), using: &rng)
            func span() -> (low: Double, high: Double) {
                let low = Double.random(in: 0...Double(total), using: &rng)
                return (low, min(Double(total), low + Double.random(in: 0...Double(total) / 2, using: &rng)))
            }
            let keep = Bool.random(using: &rng) ? [span()] : []
            let others = (0..<Int.random(in: 0...5, using: &rng)).map { _ in span() }
            let plain = CropGeometry.start(length, in: total, near: centre, keeping: keep)
            let chosen = CropGeometry.start(length, in: total, near: centre, keeping: keep, avoiding: others)
            // Every start that keeps the box as well as the plain one does.
            func keeps(_ start: Int) -> Bool {
                guard let box = keep.first else { return true }
                let low = Int(box.low.rounded(.down))
                let high = Int(box.high.rounded(.up))
                return high - low > length || (start <= low && start + length >= high)
            }
            let allowed = (0...(total - length)).filter(keeps)
            #expect(keeps(plain) && keeps(chosen), "\(chosen) \(keep)")
            func cuts(_ start: Int) -> Int {
                others.filter {
                    let low = Int($0.low.rounded(.down))
                    let high = Int($0.high.rounded(.up))
                    guard high > low, high - low <= length else { return false }
                    return start < high && start + length > low && !(start <= low && start + length >= high)
                }.count
            }
            let fewest = allowed.map(cuts).min() ?? 0
            #expect(cuts(chosen) == fewest, "start \(chosen) cuts \(cuts(chosen)), some start cuts \(fewest)")
            let ideal = (centre - Double(length) / 2).rounded()
            let nearest = allowed.filter { cuts($0) == fewest }.map { abs(Double($0) - ideal) }.min() ?? 0
            #expect(abs(Double(chosen) - ideal) == nearest, "start \(chosen), a start as good lies \(nearest) from \(ideal)")
            if others.isEmpty { #expect(chosen == plain) }
        }
    }
}

/// The subject chosen from faces (pure).
@Suite("Face subject")
struct FaceSubjectTests {
    @Test("no faces, no choice")
    func none() {
        #expect(FaceSubject.choose(faces: [], in: PixelSize(width: 100, height: 100)) == nil)
    }

    @Test("one face: its centre, kept with a margin, then bare")
    func one() throws {
        let face = UnitRect(x: 0.6, y: 0.2, width: 0.1, height: 0.3)
        let choice = try #require(FaceSubject.choose(faces: [face], in: PixelSize(width: 2400, height: 800)))
        #expect(abs(choice.point.x - 0.65) < 1e-9 && abs(choice.point.y - 0.35) < 1e-9)
        #expect(choice.keep.count == 2 && choice.keep.last == face)
        let margin = choice.keep[0]
        #expect(margin.x < face.x && margin.maxX > face.maxX && margin.y < face.y && margin.maxY > face.maxY)
    }

    @Test("faces that do not fit in one square: the largest and the neighbours that fit with it")
    func largestAndNeighbours() throws {
        // 3000×1000: a square is a third of the width.
        let big = UnitRect(x: 0.80, y: 0.3, width: 0.06, height: 0.3)
        let neighbour = UnitRect(x: 0.70, y: 0.35, width: 0.04, height: 0.2)
        let far = UnitRect(x: 0.05, y: 0.3, width: 0.05, height: 0.25)
        let choice = try #require(FaceSubject.choose(faces: [far, neighbour, big], in: PixelSize(width: 3000, height: 1000)))
        #expect(choice.faces == [big, neighbour])
        #expect(choice.keep.last == big.union(neighbour))
        // Weighted by size: nearer the big face than the midpoint of the two.
        #expect(choice.point.x > (big.centre.x + neighbour.centre.x) / 2 && choice.point.x < big.centre.x)
        for keep in choice.keep { #expect(keep.width * 3000 <= 1000 + 1e-6 && keep.height * 1000 <= 1000 + 1e-6) }
    }

    @Test("the largest face first, then the most faces that fit with it in one square, then the most face area")
    func largestFaceFirst() throws {
        // 3000×1000: a square is a third of the width. One big face on the left, four smaller
        // ones on the right (a team photo beside a portrait), one of them apart from the rest.
        let size = PixelSize(width: 3000, height: 1000)
        let alone = UnitRect(x: 0.05, y: 0.3, width: 0.06, height: 0.2)
        let team = (0..<3).map { UnitRect(x: 0.60 + Double($0) * 0.05, y: 0.4, width: 0.03, height: 0.09) }
        let apart = UnitRect(x: 0.95, y: 0.4, width: 0.03, height: 0.09)
        let choice = try #require(FaceSubject.choose(faces: [alone] + team + [apart], in: size))
        #expect(choice.faces == [alone], "\(choice.faces)")
        #expect(Set(choice.others.map(\.x)) == Set((team + [apart]).map(\.x)))
        // The largest in the team: it and the neighbours that fit with it, not the one further off.
        let lead = UnitRect(x: 0.65, y: 0.38, width: 0.032, height: 0.1)
        let far = UnitRect(x: 0.965, y: 0.4, width: 0.03, height: 0.09)
        let led = try #require(FaceSubject.choose(faces: [team[0], lead, team[2], far], in: size))
        #expect(led.faces.first == lead && Set(led.faces.map(\.x)) == Set([team[0].x, lead.x, team[2].x]))
        // Four nearly equal faces (117–125 px), three together and the largest apart: the largest
        // is kept, not the three.
        let four = [0.05, 0.17, 0.75, 0.27].enumerated().map { i, x in
            UnitRect(x: x, y: 0.4, width: [0.039, 0.040, 0.0417, 0.0387][i], height: 0.12)
        }
        let nearlyEqual = try #require(FaceSubject.choose(faces: four, in: size))
        #expect(nearlyEqual.faces == [four[2]], "\(nearlyEqual.faces)")
        // One face too large for the square: it alone.
        let huge = UnitRect(x: 0.1, y: 0.0, width: 0.5, height: 1.0)
        #expect(FaceSubject.choose(faces: [huge], in: size)?.faces == [huge])
    }

    @Test("every chosen face lies in the kept box, and the box fits the square, for random faces")
    func randomFaces() {
        var rng = SeededRandom(seed: 3)
        for size in CropGeometryTests.sizes(count: 200) {
            let faces = (0..<Int.random(in: 1...6, using: &rng)).map { _ in SubjectBoxGeometryTests.box(&rng) }
            guard let choice = FaceSubject.choose(faces: faces, in: size) else {
                Issue.record("no choice for \(faces)")
                continue
            }
            let bare = choice.keep.last!
            let side = Double(min(size.width, size.height))
            func fits(_ group: [UnitRect]) -> Bool {
                let box = group.dropFirst().reduce(group[0]) { $0.union($1) }
                return box.width * Double(size.width) <= side + 1e-6 && box.height * Double(size.height) <= side + 1e-6
            }
            // The largest face is chosen; no group with it that fits has more faces (every
            // subset, by brute force), and no face left out fits with the chosen ones.
            let largest = faces.max { $0.width * $0.height < $1.width * $1.height }!
            #expect(choice.faces.first.map { $0.width * $0.height } == largest.width * largest.height)
            if choice.faces.count > 1 || fits(choice.faces) {
                for mask in 1..<(1 << faces.count) {
                    let group = faces.indices.filter { mask & (1 << $0) != 0 }.map { faces[$0] }
                    if group.count > choice.faces.count && group.contains(choice.faces[0]) {
                        #expect(!fits(group), "\(group) fits, chose \(choice.faces)")
                    }
                }
                for face in faces where !choice.faces.contains(face) {
                    #expect(!fits(choice.faces + [face]), "\(face) fits with \(choice.faces)")
                }
            }
            #expect(choice.faces == choice.faces.sorted { $0.width * $0.height > $1.width * $1.height })
            let e = 1e-12 // the union's edges are sums of doubles
            for face in choice.faces {
                #expect(bare.x <= face.x + e && bare.maxX >= face.maxX - e && bare.y <= face.y + e && bare.maxY >= face.maxY - e)
            }
            if choice.faces.count > 1 {
                #expect(bare.width * Double(size.width) <= side + 1e-6 && bare.height * Double(size.height) <= side + 1e-6)
            }
            #expect(bare.x - 1e-9 <= choice.point.x && choice.point.x <= bare.maxX + 1e-9)
        }
    }
}
