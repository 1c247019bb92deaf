import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// The second look for small faces, planned without pixels: which regions, at which scale, within
/// the pixel budget (`FaceSearchPlan`).
@Suite("Face search plan")
struct FaceSearchPlanTests {
    typealias CellMap = FaceSearchPlan.CellMap

    /// A map of `columns`×`rows` cells of `cell` px with skin in the given cell rects, searchable
    /// (a photo) in `photo`'s cell rects, or everywhere when nil.
    static func map(_ columns: Int, _ rows: Int, cell: Double = 8, skin: [PixelRect], photo: [PixelRect]? = nil) -> CellMap {
        func mask(_ rects: [PixelRect]) -> [Bool] {
            var cells = [Bool](repeating: false, count: columns * rows)
            for rect in rects {
                for y in rect.y..<(rect.y + rect.height) {
                    for x in rect.x..<(rect.x + rect.width) { cells[y * columns + x] = true }
                }
            }
            return cells
        }
        let searchable = photo.map(mask) ?? [Bool](repeating: true, count: columns * rows)
        return CellMap(columns: columns, rows: rows, cell: cell, skin: mask(skin), searchable: searchable)
    }

    @Test("skin tones, light and dark, are skin; saturated graphics, grey and black are not")
    func skinRule() {
        for (r, g, b) in [(224.0, 172.0, 140.0), (198, 134, 66), (141, 85, 36), (255, 219, 172), (120, 70, 50)] {
            #expect(CellMap.isSkin(red: r, green: g, blue: b), "\(r),\(g),\(b)")
        }
        for (r, g, b) in [
            (255.0, 0.0, 0.0), (0, 60, 255), (255, 230, 0), (20, 230, 255), (255, 20, 120), (128, 128, 128),
            (250, 250, 250), (20, 10, 5),
        ] {
            #expect(!CellMap.isSkin(red: r, green: g, blue: b), "\(r),\(g),\(b)")
        }
    }

    @Test("a group on one side of a banner: its skin's box, at the scale a 40 px source face needs")
    func oneGroup() throws {
        // A 1800×600 decode of a 2400×800 banner: 40 px of the source is 30 px here.
        let skin = Self.map(225, 75, skin: [PixelRect(x: 180, y: 20, width: 30, height: 20)])
        let first = 1162.0 / 1800 // the 450,000 px proxy of a 3:1 image
        let plan = try #require(FaceSearchPlan.plan(cells: skin, image: PixelSize(width: 1800, height: 600), firstScale: first, smallestFace: 30))
        #expect(plan.regions == [PixelRect(x: 180 * 8, y: 20 * 8, width: 30 * 8, height: 20 * 8)])
        #expect(abs(plan.scale - 80.0 / 30) < 1e-9)
        // Its pyramid, 3/4 a level from 80/30, stops above the first search's scale: 2.67, 2,
        // 1.5, 1.13 and 0.84 (0.63 was read by the first search).
        #expect(plan.levels == 5)
    }

    @Test("the second look reads skin only where the first look reads: a skin-toned edge of graphics (a line, a disc's outline) is not searched")
    func skinInPhotoOnly() throws {
        // A 1800×600 decode: a photo in the left 75×75 cells with a group's skin in it, and
        // skin-toned lines (too thin for the first look's dense blocks) across the graphics.
        let photo = PixelRect(x: 0, y: 0, width: 75, height: 75)
        let group = PixelRect(x: 20, y: 30, width: 30, height: 6)
        let lines = [PixelRect(x: 100, y: 10, width: 120, height: 1), PixelRect(x: 150, y: 0, width: 1, height: 75)]
        let size = PixelSize(width: 1800, height: 600)
        let first = FaceSearchSettings.proxyScale(of: size)
        let map = Self.map(225, 75, skin: [group] + lines, photo: [photo] + lines)
        let plan = try #require(FaceSearchPlan.plan(cells: map, image: size, firstScale: first, smallestFace: 30, budget: 10_000_000))
        #expect(plan.regions == [PixelRect(x: 20 * 8, y: 30 * 8, width: 30 * 8, height: 6 * 8)])
        // The lines alone: no second look.
        let graphics = Self.map(225, 75, skin: lines, photo: [photo] + lines)
        #expect(FaceSearchPlan.plan(cells: graphics, image: size, firstScale: first, smallestFace: 30) == nil)
    }

    @Test("the second look's levels: every one finer than the first search's scale, and no coarser one")
    func levels() {
        #expect(FaceSearchPlan.levels(from: 2, above: 1) == 3) // 2, 1.5, 1.125; not 0.84
        #expect(FaceSearchPlan.levels(from: 1.21, above: 1) == 1)
        #expect(FaceSearchPlan.levels(from: 4, above: 0.75) == 6) // 4 · 0.75^5 = 0.95; 0.75^6 · 4 = 0.71
        var rng = SeededRandom(seed: 77)
        for _ in 0..<1000 {
            let coarsest = Double.random(in: 0.05...2, using: &rng)
            let scale = coarsest * Double.random(in: 1.2...40, using: &rng)
            let levels = FaceSearchPlan.levels(from: scale, above: coarsest)
            #expect(levels >= 1)
            #expect(scale * pow(FaceSearchPlan.pyramidStep, Double(levels - 1)) > coarsest)
            #expect(scale * pow(FaceSearchPlan.pyramidStep, Double(levels)) <= coarsest)
        }
    }

    @Test("areas whose boxes overlap are searched as one; regions stay disjoint")
    func merging() throws {
        // A square, an L whose box overlaps it (its cells do not touch the square's), and a
        // square apart.
        let skin = Self.map(
            100, 50,
            skin: [
                PixelRect(x: 10, y: 10, width: 5, height: 5), PixelRect(x: 12, y: 16, width: 8, height: 1),
                PixelRect(x: 19, y: 9, width: 1, height: 8), PixelRect(x: 60, y: 30, width: 4, height: 4),
            ])
        let plan = try #require(FaceSearchPlan.plan(cells: skin, image: PixelSize(width: 800, height: 400), firstScale: 1, smallestFace: 20))
        #expect(plan.regions.count == 2)
        #expect(plan.regions.contains(PixelRect(x: 10 * 8, y: 9 * 8, width: 10 * 8, height: 8 * 8)))
        #expect(plan.regions.contains(PixelRect(x: 60 * 8, y: 30 * 8, width: 4 * 8, height: 4 * 8)))
    }

    @Test("nothing looks like skin, or the first search read finely enough: no second look")
    func noPlan() {
        let size = PixelSize(width: 1800, height: 600)
        #expect(FaceSearchPlan.plan(cells: Self.map(225, 75, skin: []), image: size, firstScale: 0.65, smallestFace: 30) == nil)
        let skin = Self.map(225, 75, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
        // 80 px faces at 1:1 are already the window's size.
        #expect(FaceSearchPlan.plan(cells: skin, image: size, firstScale: 1, smallestFace: 80) == nil)
        #expect(FaceSearchPlan.plan(cells: skin, image: size, firstScale: 0.9, smallestFace: 80) == nil)
        // Photos (4:3, 3:2, square) get no second look; banners from 16:9 do.
        let wideSkin = Self.map(225, 75, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
        #expect(FaceSearchPlan.plan(cells: wideSkin, image: size, firstScale: 0.65, smallestFace: 30) != nil)
        for (width, height) in [(1800, 1350), (1800, 1200), (1800, 1800), (1200, 1800), (1700, 1001)] {
            #expect(!FaceSearchPlan.looksAgain(at: PixelSize(width: width, height: height)), "\(width)×\(height)")
            let photo = Self.map(225, height / 8, skin: [PixelRect(x: 10, y: 10, width: 20, height: 20)])
            #expect(FaceSearchPlan.plan(cells: photo, image: PixelSize(width: width, height: height), firstScale: 0.4, smallestFace: 30) == nil)
        }
        for (width, height) in [(1920, 1080), (1200, 600), (600, 1200), (3000, 1000)] {
            #expect(FaceSearchPlan.looksAgain(at: PixelSize(width: width, height: height)), "\(width)×\(height)")
        }
        // No first scale (or none that is a scale): no plan, and no endless count of levels.
        for first in [0.0, -1, .nan, .infinity] {
            #expect(FaceSearchPlan.plan(cells: wideSkin, image: size, firstScale: first, smallestFace: 30) == nil, "\(first)")
        }
        // A map that does not match its size is no map.
        #expect(
            FaceSearchPlan.plan(
                cells: CellMap(columns: 3, rows: 3, cell: 8, skin: [true], searchable: [true]), image: size, firstScale: 0.1, smallestFace: 30) == nil
        )
    }

    @Test("for random maps: regions inside the image, disjoint, covering every skin cell they keep, within the budget, no finer than needed")
    func randomMaps() {
        var rng = SeededRandom(seed: 41)
        for _ in 0..<200 {
            let columns = Int.random(in: 1...160, using: &rng)
            let rows = Int.random(in: 1...80, using: &rng)
            let size = PixelSize(width: columns * 8 + Int.random(in: 0...7, using: &rng), height: rows * 8 + Int.random(in: 0...7, using: &rng))
            let density = Double.random(in: 0...0.08, using: &rng)
            let skin = (0..<(columns * rows)).map { _ in Double.random(in: 0..<1, using: &rng) < density }
            // A photo of random texture: every cell, or half of them, or few.
            let texture = [1.0, 0.5, 0.2][Int.random(in: 0...2, using: &rng)]
            let searchable = (0..<(columns * rows)).map { _ in Double.random(in: 0..<1, using: &rng) < texture }
            let map = CellMap(columns: columns, rows: rows, cell: Double(size.width) / Double(columns), skin: skin, searchable: searchable)
            let first = min(1, (450_000 / Double(size.width * size.height)).squareRoot())
            let smallest = Double.random(in: 10...120, using: &rng)
            let budget = Double.random(in: 100_000...2_000_000, using: &rng)
            guard let plan = FaceSearchPlan.plan(cells: map, image: size, firstScale: first, smallestFace: smallest, budget: budget) else {
                continue
            }
            #expect(plan.scale <= FaceSearchPlan.window / smallest + 1e-9)
            #expect(plan.scale > first * 1.2)
            #expect(plan.levels == FaceSearchPlan.levels(from: plan.scale, above: first))
            let area = plan.regions.reduce(0.0) { $0 + Double($1.width * $1.height) } * plan.scale * plan.scale
            #expect(area <= budget * (1 + 1e-9), "\(area) > \(budget)")
            for (i, a) in plan.regions.enumerated() {
                #expect(a.x >= 0 && a.y >= 0 && a.x + a.width <= size.width && a.y + a.height <= size.height, "\(a) in \(size)")
                #expect((Double(a.width) * plan.scale).rounded() >= FaceSearchPlan.window)
                for b in plan.regions[(i + 1)...] { #expect(!FaceSearchPlan.overlap(a, b), "\(a) \(b)") }
            }
            // Every skin cell in a dense block of searchable cells lies in a region unless the
            // regions were dropped as too small; every region holds one (skin outside those
            // blocks is not searched for itself).
            let dense = FaceSearchPlan.denseBlocks(of: searchable, columns: columns, rows: rows)
            let kept = zip(skin, dense).map { $0 && $1 }
            for region in plan.regions {
                let holds = kept.indices.contains { at in
                    let x = Int(Double(at % columns) * map.cell + map.cell / 2)
                    let y = Int(Double(at / columns) * map.cell + map.cell / 2)
                    return kept[at] && region.x <= x && x < region.x + region.width && region.y <= y && y < region.y + region.height
                }
                #expect(holds, "\(region) holds no skin cell of a dense block")
            }
            if plan.scale == FaceSearchPlan.window / smallest {
                let small = FaceSearchPlan.areas(of: kept, columns: columns, rows: rows).count > plan.regions.count
                for at in kept.indices where kept[at] {
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

    // MARK: - The first look: only where a face could be

    typealias Cell = FaceSearchPlan.Cell

    /// Grey textured cells (a photo) in the given cell rects, flat white elsewhere.
    static func photo(_ columns: Int, _ rows: Int, textured: [PixelRect]) -> CellMap {
        var cells = [Cell](repeating: .grey(250), count: columns * rows)
        for rect in textured {
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { cells[y * columns + x] = .grey(120, deviation: 12) }
            }
        }
        return CellMap(columns: columns, rows: rows, cell: 8, cells: cells)
    }

    @Test(
        "cells: vivid graphics, hues no skin has (sky, foliage) and flat backgrounds are not searched; texture, smooth gradients, grey and every skin hue are; skin is not two vivid colours averaged"
    )
    func cellRules() {
        let vivid = [
            Cell(red: 255, green: 20, blue: 120, chroma: 235, deviation: 30), Cell(red: 255, green: 230, blue: 0, chroma: 255, deviation: 0),
            Cell(red: 20, green: 230, blue: 255, chroma: 235, deviation: 5),
        ]
        for cell in vivid { #expect(cell.isVivid, "\(cell)") }
        // A face under warm light, a dark face, a grey photo: not vivid.
        for cell in [
            Cell(red: 230, green: 150, blue: 90, chroma: 140, deviation: 8), Cell(red: 120, green: 70, blue: 50, chroma: 70, deviation: 6),
            Cell.grey(90, deviation: 20),
        ] {
            #expect(!cell.isVivid, "\(cell)")
        }
        // Hues no skin has: a blue sky, foliage, water; not skin in any light, lips, a grey
        // portrait, or a cell too near grey for its hue to count.
        for cell in [
            Cell(red: 90, green: 140, blue: 220, chroma: 130, deviation: 3), Cell(red: 60, green: 120, blue: 40, chroma: 80, deviation: 25),
            Cell(red: 40, green: 150, blue: 160, chroma: 120, deviation: 12),
        ] {
            #expect(cell.hasOtherHue, "\(cell)")
        }
        for cell in [
            Cell(red: 224, green: 172, blue: 140, chroma: 90, deviation: 4), Cell(red: 120, green: 70, blue: 50, chroma: 70, deviation: 6),
            Cell(red: 230, green: 150, blue: 90, chroma: 140, deviation: 8), Cell(red: 200, green: 90, blue: 110, chroma: 110, deviation: 9),
            Cell(red: 210, green: 200, blue: 60, chroma: 150, deviation: 5), Cell.grey(90, deviation: 20),
            Cell(red: 100, green: 105, blue: 125, chroma: 25, deviation: 7),
        ] {
            #expect(!cell.hasOtherHue, "\(cell)")
        }
        #expect(Cell(red: 200, green: 90, blue: 110, chroma: 110, deviation: 9).hue.map { abs($0 - 349.1) < 0.1 } == true)
        #expect(Cell.grey(40).hue == nil)
        // A textured sky cell is not read; a textured grey one beside it is.
        let sky = CellMap(
            columns: 2, rows: 1, cell: 8, cells: [Cell(red: 90, green: 140, blue: 220, chroma: 130, deviation: 9), .grey(140, deviation: 9)])
        #expect(sky.searchable == [false, true])
        // Skin: a uniform skin tone is; the same mean made of pixels far more colourful is not.
        #expect(Cell(red: 224, green: 172, blue: 140, chroma: 90, deviation: 4).isSkin)
        #expect(!Cell(red: 224, green: 172, blue: 140, chroma: 200, deviation: 60).isSkin)
        // A row of 5 cells: flat, flat, a gradient, textured, vivid.
        let row = [
            Cell.grey(200), .grey(200), .grey(203), Cell.grey(100, deviation: 9), Cell(red: 255, green: 0, blue: 0, chroma: 255, deviation: 40),
        ]
        let map = CellMap(columns: 5, rows: 1, cell: 8, cells: row)
        // The second cell borders the gradient, so it is not flat either.
        #expect(map.searchable == [false, true, true, true, false])
        #expect(map.skin == [false, false, false, false, false])
        // One cell alone: flat, nothing to compare with.
        #expect(CellMap(columns: 1, rows: 1, cell: 8, cells: [.grey(7)]).searchable == [false])
    }

    @Test(
        "the first look: a photo on one side of a banner is read alone, at the whole image's scale; graphics alone, nothing; a photo filling most of the image, all of it"
    )
    func firstLook() throws {
        // A 1800×600 decode of a 2400×800 banner: a photo of 600×600 px on the left (75×75 cells).
        let size = PixelSize(width: 1800, height: 600)
        let scale = FaceSearchSettings.proxyScale(of: size)
        let banner = Self.photo(225, 75, textured: [PixelRect(x: 0, y: 0, width: 75, height: 75)])
        guard case .regions(let plan) = FaceSearchPlan.firstLook(cells: banner, image: size, scale: scale) else {
            Issue.record("a banner with a photo on one side is read whole")
            return
        }
        #expect(plan.scale == scale)
        // The photo's blocks (8 cells: up to 80 cells = 640 px) and the margin of 3 cells.
        #expect(plan.regions == [PixelRect(x: 0, y: 0, width: 83 * 8, height: 600)])
        // Nothing textured: nothing is read.
        #expect(
            FaceSearchPlan.firstLook(cells: Self.photo(225, 75, textured: []), image: size, scale: scale)
                == .regions(FaceSearchPlan(regions: [], scale: scale)))
        // A thin line (a pattern's edge) is too sparse for a block.
        let line = Self.photo(225, 75, textured: [PixelRect(x: 0, y: 30, width: 225, height: 1)])
        #expect(FaceSearchPlan.firstLook(cells: line, image: size, scale: scale) == .regions(FaceSearchPlan(regions: [], scale: scale)))
        // A patch too small to hold dlib's window at the scale: not read.
        let speck = Self.photo(225, 75, textured: [PixelRect(x: 96, y: 24, width: 8, height: 8)])
        #expect(FaceSearchPlan.firstLook(cells: speck, image: size, scale: scale) == .regions(FaceSearchPlan(regions: [], scale: scale)))
        // Most of the image: one proxy of all of it.
        let most = Self.photo(225, 75, textured: [PixelRect(x: 0, y: 0, width: 150, height: 75)])
        #expect(FaceSearchPlan.firstLook(cells: most, image: size, scale: scale) == .wholeImage)
        // A map that does not fit its image: all of it.
        #expect(
            FaceSearchPlan.firstLook(cells: CellMap(columns: 2, rows: 2, cell: 8, skin: [], searchable: []), image: size, scale: scale) == .wholeImage
        )
    }

    @Test(
        "for random maps: the first look's regions lie inside the image, are disjoint, each holds the window at the scale, cover every dense block they keep, and read less than the whole"
    )
    func randomFirstLooks() {
        var rng = SeededRandom(seed: 1741)
        var sawRegions = 0
        for _ in 0..<300 {
            let columns = Int.random(in: 1...240, using: &rng)
            let rows = Int.random(in: 1...120, using: &rng)
            let size = PixelSize(
                width: (columns - 1) * 8 + Int.random(in: 1...8, using: &rng), height: (rows - 1) * 8 + Int.random(in: 1...8, using: &rng))
            // Random patches of texture on white.
            var patches: [PixelRect] = []
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                let x = Int.random(in: 0..<columns, using: &rng)
                let y = Int.random(in: 0..<rows, using: &rng)
                patches.append(
                    PixelRect(x: x, y: y, width: Int.random(in: 1...(columns - x), using: &rng), height: Int.random(in: 1...(rows - y), using: &rng)))
            }
            let map = Self.photo(columns, rows, textured: patches)
            let scale = FaceSearchSettings.proxyScale(of: size)
            guard case .regions(let plan) = FaceSearchPlan.firstLook(cells: map, image: size, scale: scale) else { continue }
            sawRegions += plan.regions.isEmpty ? 0 : 1
            #expect(plan.scale == scale)
            let area = plan.regions.reduce(0) { $0 + $1.width * $1.height }
            #expect(Double(area) < FaceSearchPlan.wholeShare * Double(size.width * size.height))
            for (i, a) in plan.regions.enumerated() {
                #expect(a.x >= 0 && a.y >= 0 && a.x + a.width <= size.width && a.y + a.height <= size.height, "\(a) in \(size)")
                #expect((Double(a.width) * scale).rounded() >= FaceSearchPlan.window && (Double(a.height) * scale).rounded() >= FaceSearchPlan.window)
                for b in plan.regions[(i + 1)...] { #expect(!FaceSearchPlan.overlap(a, b), "\(a) \(b)") }
            }
            // A dense block lies in a region, unless its region was too small to hold the window.
            let dense = FaceSearchPlan.denseBlocks(of: map.searchable, columns: columns, rows: rows)
            let kept = FaceSearchPlan.regions(of: dense, in: map, image: size, margin: FaceSearchPlan.firstMargin)
            for at in dense.indices where dense[at] {
                let x = (at % columns) * 8 + 4
                let y = (at / columns) * 8 + 4
                let inRegion = plan.regions.contains { $0.x <= x && x < $0.x + $0.width + 4 && $0.y <= y && y < $0.y + $0.height + 4 }
                let dropped = kept.contains {
                    $0.x <= x && x < $0.x + $0.width + 4 && $0.y <= y && y < $0.y + $0.height + 4 && !plan.regions.contains($0)
                }
                #expect(inRegion || dropped, "cell \(at) of \(columns)×\(rows)")
            }
        }
        #expect(sawRegions > 20)
    }
}
