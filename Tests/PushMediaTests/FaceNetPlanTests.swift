import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Where the CNN looks and at what scale, within the budget (`FaceNetPlan`), and how faces are
/// measured (`FaceSizePlan`): planned without pixels.
@Suite("Face net plan")
struct FaceNetPlanTests {
    static let banner = PixelSize(width: 1800, height: 600)

    @Test("a banner's skin, no face found: its box and a cell of margin, at the scale that brings the smallest face to the net's window")
    func skinArea() throws {
        let map = FaceSearchPlanTests.map(225, 75, skin: [PixelRect(x: 180, y: 20, width: 30, height: 20)])
        let plan = try #require(
            FaceNetPlan.plan(cells: map, image: Self.banner, found: [], nearMisses: [], smallestFace: 30, milliseconds: 2000))
        #expect(plan.regions.map(\.rect) == [PixelRect(x: 179 * 8, y: 19 * 8, width: 32 * 8, height: 22 * 8)])
        #expect(plan.regions.allSatisfy { abs($0.scale - FaceNetPlan.window / 30) < 1e-9 })
    }

    @Test("skin under the faces already found is not read again; a banner with nothing else gets no plan")
    func foundFacesExplainTheirSkin() throws {
        let face = PixelRect(x: 1440, y: 160, width: 80, height: 80)
        let map = FaceSearchPlanTests.map(225, 75, skin: [PixelRect(x: 182, y: 22, width: 6, height: 6)])
        #expect(FaceNetPlan.plan(cells: map, image: Self.banner, found: [face], nearMisses: [], smallestFace: 30, milliseconds: 800) == nil)
        // A second skin area away from the face is read.
        let two = FaceSearchPlanTests.map(
            225, 75, skin: [PixelRect(x: 182, y: 22, width: 6, height: 6), PixelRect(x: 20, y: 40, width: 8, height: 8)])
        let plan = try #require(
            FaceNetPlan.plan(cells: two, image: Self.banner, found: [face], nearMisses: [], smallestFace: 30, milliseconds: 800))
        #expect(plan.regions.map(\.rect) == [PixelRect(x: 19 * 8, y: 39 * 8, width: 10 * 8, height: 10 * 8)])
    }

    @Test("near misses first, grown by half their size, then skin areas, largest first; a near miss on a found face is not one")
    func nearMissesFirst() throws {
        let map = FaceSearchPlanTests.map(
            225, 75, skin: [PixelRect(x: 10, y: 10, width: 8, height: 8), PixelRect(x: 100, y: 10, width: 20, height: 20)])
        let miss = PixelRect(x: 1200, y: 300, width: 100, height: 100)
        let onFace = PixelRect(x: 1600, y: 300, width: 90, height: 90)
        let plan = try #require(
            FaceNetPlan.plan(
                cells: map, image: Self.banner, found: [PixelRect(x: 1600, y: 300, width: 100, height: 100)],
                nearMisses: [miss, onFace], smallestFace: 40, milliseconds: 2000))
        #expect(
            plan.regions.map(\.rect) == [
                PixelRect(x: 1150, y: 250, width: 200, height: 200), PixelRect(x: 99 * 8, y: 9 * 8, width: 22 * 8, height: 22 * 8),
                PixelRect(x: 9 * 8, y: 9 * 8, width: 10 * 8, height: 10 * 8),
            ])
    }

    @Test("photos, no budget, no skin and no near miss: no plan")
    func noPlan() {
        let skin = FaceSearchPlanTests.map(225, 75, skin: [PixelRect(x: 100, y: 10, width: 20, height: 20)])
        #expect(FaceNetPlan.plan(cells: skin, image: Self.banner, found: [], nearMisses: [], smallestFace: 30, milliseconds: 0) == nil)
        let photo = FaceSearchPlanTests.map(150, 100, skin: [PixelRect(x: 100, y: 10, width: 20, height: 20)])
        #expect(
            FaceNetPlan.plan(cells: photo, image: PixelSize(width: 1200, height: 800), found: [], nearMisses: [], smallestFace: 30, milliseconds: 800)
                == nil)
        let none = FaceSearchPlanTests.map(225, 75, skin: [])
        #expect(FaceNetPlan.plan(cells: none, image: Self.banner, found: [], nearMisses: [], smallestFace: 30, milliseconds: 800) == nil)
    }

    @Test(
        "for random maps, faces and budgets: the pixels read stay within the budget, every region inside the image, no scale under the lowest share of the one wanted"
    )
    func withinBudget() {
        var rng = SeededRandom(seed: 57)
        for _ in 0..<300 {
            let columns = Int.random(in: 60...400, using: &rng)
            let rows = max(1, columns / Int.random(in: 2...4, using: &rng))
            let image = PixelSize(width: columns * 8, height: rows * 8)
            let skin = (0..<Int.random(in: 0...12, using: &rng)).map { _ -> PixelRect in
                let x = Int.random(in: 0..<columns, using: &rng)
                let y = Int.random(in: 0..<rows, using: &rng)
                return PixelRect(
                    x: x, y: y, width: Int.random(in: 1...min(40, columns - x), using: &rng),
                    height: Int.random(in: 1...min(40, rows - y), using: &rng))
            }
            let misses = (0..<Int.random(in: 0...4, using: &rng)).map { _ -> PixelRect in
                let side = Int.random(in: 20...120, using: &rng)
                return PixelRect(
                    x: Int.random(in: 0...(image.width - side), using: &rng), y: Int.random(in: 0...max(0, image.height - side), using: &rng),
                    width: side, height: min(side, image.height))
            }
            let milliseconds = Double(Int.random(in: 0...3000, using: &rng))
            let smallest = Double(Int.random(in: 20...120, using: &rng))
            let map = FaceSearchPlanTests.map(columns, rows, skin: skin)
            guard
                let plan = FaceNetPlan.plan(
                    cells: map, image: image, found: [], nearMisses: misses, smallestFace: smallest, milliseconds: milliseconds)
            else { continue }
            let read = plan.regions.reduce(0.0) { $0 + $1.scaledArea }
            #expect(read <= FaceNetPlan.pixels(for: milliseconds) * (1 + 1e-9), "\(read) px for \(milliseconds) ms")
            let wanted = min(16, FaceNetPlan.window / smallest)
            for region in plan.regions {
                let r = region.rect
                #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= image.width && r.y + r.height <= image.height && r.width > 0 && r.height > 0)
                #expect(region.scale <= wanted + 1e-9 && region.scale >= wanted * FaceNetPlan.lowestScaleShare - 1e-9)
            }
        }
    }

    @Test("the deadline C stops at is the budget with its slack; the pixels follow the measured cost")
    func budgetValues() {
        #expect(FaceNetPlan.pixels(for: 800) == 800 * 1000 / FaceNetPlan.microsecondsPerPixel)
        #expect(FaceNetPlan.deadline(for: 800) == .milliseconds(3200))
        #expect(FaceNetPlan.pixels(for: -5) == 0)
    }

    @Test("a face found twice (by both detectors, or by two regions) counts once, the surer kept")
    func newFaces() {
        let found = [PixelRect(x: 100, y: 100, width: 80, height: 80)]
        let net = [
            PixelRect(x: 110, y: 105, width: 70, height: 70), PixelRect(x: 400, y: 100, width: 60, height: 60),
            PixelRect(x: 405, y: 102, width: 62, height: 62),
        ]
        #expect(FaceNetPlan.newFaces(net, besides: found) == [PixelRect(x: 400, y: 100, width: 60, height: 60)])
    }

    @Test(
        "a face is measured on one level at scales that bring 0.6–1.4 of its box to the window, around it; its detections' sizes, weighted by score, are its size"
    )
    func measured() throws {
        let face = PixelRect(x: 500, y: 200, width: 151, height: 151)
        let searches = FaceSizePlan.searches(for: face, in: PixelSize(width: 2400, height: 800))
        #expect(searches.count == FaceSizePlan.steps.count)
        #expect(FaceSizePlan.steps.first == 0.6 && FaceSizePlan.steps.last == 1.4 && FaceSizePlan.steps.count == 21)
        for (search, step) in zip(searches, FaceSizePlan.steps) {
            #expect(abs(search.scale * 151 * step - FaceSearchPlan.window) < 1e-9)
            #expect(search.region == PixelRect(x: 424, y: 124, width: 303, height: 303))
        }
        // Two detections of it, equally sure (100 and 144 px: 120 between), and another face.
        let found: [(rect: PixelRect, score: Double)] = [
            (PixelRect(x: 530, y: 230, width: 100, height: 100), 1.0), (PixelRect(x: 510, y: 210, width: 144, height: 144), 1.0),
            (PixelRect(x: 900, y: 210, width: 130, height: 130), 2.0),
        ]
        #expect(FaceSizePlan.measured(face, found: found) == PixelRect(x: 520, y: 220, width: 120, height: 120))
        // A surer detection weighs more; one scoring 0 not at all.
        let surer = FaceSizePlan.measured(face, found: [found[0], (found[1].rect, 3.0)])
        #expect(surer.width > 120 && surer.width < 144 && surer.width == surer.height)
        #expect(FaceSizePlan.measured(face, found: [found[0], (found[1].rect, 0)]) == found[0].rect)
        #expect(FaceSizePlan.measured(face, found: []) == face)
    }
}
