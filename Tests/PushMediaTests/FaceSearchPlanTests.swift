import PushMediaModel
import Testing

@testable import PushMedia

/// The second look for small faces, planned without pixels: which regions, at which scale, within
/// the pixel budget (`FaceSearchPlan`).
@Suite("Face search plan")
struct FaceSearchPlanTests {
    typealias SkinMap = FaceSearchPlan.SkinMap

    /// A map of `columns`×`rows` cells of `cell` px with skin in the given cell rects.
    static func map(_ columns: Int, _ rows: Int, cell: Double = 8, skin: [PixelRect]) -> SkinMap {
        var cells = [Bool](repeating: false, count: columns * rows)
        for rect in skin {
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { cells[y * columns + x] = true }
            }
        }
        return SkinMap(columns: columns, rows: rows, cell: cell, skin: cells)
    }

    @Test("skin tones, light and dark, are skin; saturated graphics, grey and black are not")
    func skinRule() {
        for (r, g, b) in [(224.0, 172.0, 140.0), (198, 134, 66), (141, 85, 36), (255, 219, 172), (120, 70, 50)] {
            #expect(SkinMap.isSkin(red: r, green: g, blue: b), "\(r),\(g),\(b)")
        }
        for (r, g, b) in [(255.0, 0.0, 0.0), (0, 60, 255), (255, 230, 0), (20, 230, 255), (255, 20, 120), (128, 128, 128),
            (250, 250, 250), (20, 10, 5)]
        {
            #expect(!SkinMap.isSkin(red: r, green: g, blue: b), "\(r),\(g),\(b)")
        }
    }

    @Test("a group on one side of a banner: its region, grown by the margin, at the scale a 40 px source face needs")
    func oneGroup() throws {
        // A 1800×600 decode of a 2400×800 banner: 40 px of the source is 30 px here.
        let skin = Self.map(225, 75, skin: [PixelRect(x: 180, y: 20, width: 30, height: 20)])
        let first = 1162.0 / 1800  // the 450,000 px proxy of a 3:1 image
        let plan = try #require(FaceSearchPlan.plan(skin: skin, image: PixelSize(width: 1800, height: 600), firstScale: first, smallestFace: 30))
        #expect(plan.regions == [PixelRect(x: 178 * 8, y: 18 * 8, width: 34 * 8, height: 24 * 8)])
        #expect(abs(plan.scale - 80.0 / 30) < 1e-9)
    }

    @Test("regions that overlap once grown are searched as one; regions stay disjoint")
    func merging() throws {
        let skin = Self.map(100, 50, skin: [PixelRect(x: 10, y: 10, width: 5, height: 5), PixelRect(x: 17, y: 10, width: 5, height: 5),
            PixelRect(x: 60, y: 30, width: 4, height: 4)])
        let plan = try #require(FaceSearchPlan.plan(skin: skin, image: PixelSize(width: 800, height: 400), firstScale: 1, smallestFace: 20))
        #expect(plan.regions.count == 2)
        #expect(plan.regions.contains(PixelRect(x: 8 * 8, y: 8 * 8, width: 16 * 8, height: 9 * 8)))
    }

    @Test("nothing looks like skin, or the first search read finely enough: no second look")
    func noPlan() {
        let size = PixelSize(width: 1800, height: 600)
        #expect(FaceSearchPlan.plan(skin: Self.map(225, 75, skin: []), image: size, firstScale: 0.65, smallestFace: 30) == nil)
        let skin = Self.map(225, 75, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
        // 80 px faces at 1:1 are already the window's size.
        #expect(FaceSearchPlan.plan(skin: skin, image: size, firstScale: 1, smallestFace: 80) == nil)
        #expect(FaceSearchPlan.plan(skin: skin, image: size, firstScale: 0.9, smallestFace: 80) == nil)
        // Photos (4:3, 3:2, square) get no second look; banners from 16:9 do.
        let wideSkin = Self.map(225, 75, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
        #expect(FaceSearchPlan.plan(skin: wideSkin, image: size, firstScale: 0.65, smallestFace: 30) != nil)
        for (width, height) in [(1800, 1350), (1800, 1200), (1800, 1800), (1200, 1800), (1700, 1001)] {
            #expect(!FaceSearchPlan.looksAgain(at: PixelSize(width: width, height: height)), "\(width)×\(height)")
            let photo = Self.map(225, height / 8, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
            #expect(FaceSearchPlan.plan(skin: photo, image: PixelSize(width: width, height: height), firstScale: 0.4, smallestFace: 30) == nil)
        }
        for (width, height) in [(1920, 1080), (1200, 600), (600, 1200), (3000, 1000)] {
            #expect(FaceSearchPlan.looksAgain(at: PixelSize(width: width, height: height)), "\(width)×\(height)")
        }
        // A map that does not match its size is no map.
        #expect(FaceSearchPlan.plan(skin: SkinMap(columns: 3, rows: 3, cell: 8, skin: [true]), image: size, firstScale: 0.1, smallestFace: 30) == nil)
    }

    @Test("for random maps: regions inside the image, disjoint, covering every skin cell they keep, within the budget, no finer than needed")
    func randomMaps() {
        var rng = CropGeometryTests.SeededRandom(state: 41)
        for _ in 0..<200 {
            let columns = Int.random(in: 1...160, using: &rng)
            let rows = Int.random(in: 1...80, using: &rng)
            let size = PixelSize(width: columns * 8 + Int.random(in: 0...7, using: &rng), height: rows * 8 + Int.random(in: 0...7, using: &rng))
            let density = Double.random(in: 0...0.08, using: &rng)
            let skin = (0..<(columns * rows)).map { _ in Double.random(in: 0..<1, using: &rng) < density }
            let map = SkinMap(columns: columns, rows: rows, cell: Double(size.width) / Double(columns), skin: skin)
            let first = min(1, (450_000 / Double(size.width * size.height)).squareRoot())
            let smallest = Double.random(in: 10...120, using: &rng)
            let budget = Double.random(in: 100_000...2_000_000, using: &rng)
            guard let plan = FaceSearchPlan.plan(skin: map, image: size, firstScale: first, smallestFace: smallest, budget: budget) else {
                continue
            }
            #expect(plan.scale <= FaceSearchPlan.window / smallest + 1e-9)
            #expect(plan.scale > first * 1.2)
            let area = plan.regions.reduce(0.0) { $0 + Double($1.width * $1.height) } * plan.scale * plan.scale
            #expect(area <= budget * (1 + 1e-9), "\(area) > \(budget)")
            for (i, a) in plan.regions.enumerated() {
                #expect(a.x >= 0 && a.y >= 0 && a.x + a.width <= size.width && a.y + a.height <= size.height, "\(a) in \(size)")
                #expect((Double(a.width) * plan.scale).rounded() >= FaceSearchPlan.window)
                for b in plan.regions[(i + 1)...] { #expect(!FaceSearchPlan.overlap(a, b), "\(a) \(b)") }
            }
            // Every skin cell lies in a region unless the regions were dropped as too small.
            if plan.scale == FaceSearchPlan.window / smallest {
                let small = FaceSearchPlan.areas(of: map).count > plan.regions.count
                for at in skin.indices where skin[at] {
                    let x = Double(at % columns) * map.cell + map.cell / 2
                    let y = Double(at / columns) * map.cell + map.cell / 2
                    let inside = plan.regions.contains {
                        Double($0.x) <= x && x <= Double($0.x + $0.width) && Double($0.y) <= y && y <= Double($0.y + $0.height)
                    }
                    #expect(inside || small)
                }
            }
        }
    }
}
