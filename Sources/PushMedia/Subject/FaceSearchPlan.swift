import Foundation

/// The second look for faces too small for the whole image's proxy (a group photo in one end of a
/// wide banner): pure, no pixels.
///
/// The first search reads the image reduced to ``FaceDetector/searchArea`` pixels, where dlib's
/// detector finds faces from ~80 px of the proxy: a face of ~165 px in a 2400×800 banner. It
/// reads only the parts of that proxy that could hold a face (``firstLook(cells:image:scale:)``:
/// not plain backgrounds, not vivid graphics), or all of it when those cover most of the image.
/// When it finds none, the places that look like skin on a map of 8 px cells (``CellMap``), within
/// the parts the first search read (its dense blocks of searchable cells, not graphics), are
/// searched again, each region enlarged so a face of ``smallestSourceFace`` pixels of the source
/// reaches the detector's window, all regions together at most ``budget`` pixels (the scale is
/// lowered to fit, so the CPU stays bounded: docs/benchmarks/faces.md), and only on the levels of
/// the detector's pyramid finer than the first search's scale (``levels``). An image without
/// skin-coloured areas there (graphics, a grey photo) gets no second look.
public struct FaceSearchPlan: Sendable, Equatable {
    /// The regions to search, in pixels of the image, disjoint.
    public var regions: [PixelRect]
    /// How many times their size they are searched.
    public var scale: Double
    /// How many levels of the detector's pyramid are searched, the finest (at ``scale``) first,
    /// each ``pyramidStep`` times the one before; nil: every level that holds the window.
    public var levels: Int?

    public init(regions: [PixelRect], scale: Double, levels: Int? = nil) {
        self.regions = regions
        self.scale = scale
        self.levels = levels
    }

    /// Smallest face worth keeping, in pixels of the source image (its width).
    public static let smallestSourceFace = 40.0
    /// Face width, in searched pixels, from which dlib's model finds faces (its 80 px window).
    public static let window = 80.0
    /// Pixels searched by the second look at most, all regions together, at the scale searched
    /// (two thirds of the first search's proxy, ``FaceDetector/searchArea``). Measured on the group
    /// banners (docs/benchmarks/faces.md): with the regions below, 300,000 keeps a face in all 36,
    /// 200,000 in 35; 450,000 finds 2 more of their 144 faces for ~8 % more CPU per job.
    public static let budget = 300_000.0
    /// The detector's pyramid: each level 3/4 the size of the one before (CFaceDetect's
    /// `PM_FACE_PYRAMID_DOWN`, 4: dlib's `pyramid_down<4>`; FaceTests holds the two equal).
    public static let pyramidStep = 0.75
    /// Cells of margin around each skin-coloured area: none. The area's own box holds a face's
    /// skin, which the window finds; a margin spends the budget on hair and background instead,
    /// lowering the scale: at 300,000 px, margins of 0, 1 and 2 cells kept a face in 36, 35 and 34
    /// of the 36 group banners (docs/benchmarks/faces.md).
    public static let margin = 0
    /// The long side over the short one from which an image gets the second look: banners (16:9
    /// and wider), where a group photo sits in one end; photos (3:2, 4:3, square), whose faces
    /// the first search already reads at a fifth of the short side or finer, do not pay for it.
    public static let minimumAspect = 1.7

    /// Whether an image of `size` is wide enough for the second look (``minimumAspect``).
    public static func looksAgain(at size: PixelSize) -> Bool {
        let long = Double(max(size.width, size.height))
        let short = Double(min(size.width, size.height))
        return short > 0 && long >= short * minimumAspect
    }

    /// What one cell of an image holds (``FaceDetector/cells(of:)``): means over its pixels, in
    /// 8-bit levels.
    public struct Cell: Sendable, Equatable {
        /// Mean colour (a grey image: all three its grey).
        public var red: Double
        public var green: Double
        public var blue: Double
        /// Mean over the pixels of max(r, g, b) − min(r, g, b): high on vivid graphics, also
        /// where two vivid colours meet and average to a skin tone.
        public var chroma: Double
        /// Standard deviation of the band searched (an sRGB image's green, whose mean is `green`).
        public var deviation: Double

        public init(red: Double, green: Double, blue: Double, chroma: Double, deviation: Double) {
            self.red = red
            self.green = green
            self.blue = blue
            self.chroma = chroma
            self.deviation = deviation
        }

        /// A grey cell of `level`, as flat as `deviation`.
        public static func grey(_ level: Double, deviation: Double = 0) -> Cell {
            Cell(red: level, green: level, blue: level, chroma: 0, deviation: deviation)
        }

        /// Whether its mean colour looks like skin (``CellMap/isSkin(red:green:blue:)``) and is not
        /// two colours averaged: its pixels are no more colourful than their mean by more than
        /// ``CellMap/mixedChroma`` levels.
        public var isSkin: Bool {
            let meanChroma = max(red, green, blue) - min(red, green, blue)
            return CellMap.isSkin(red: red, green: green, blue: blue) && chroma - meanChroma <= CellMap.mixedChroma
        }

        /// Whether its pixels are vivid graphics (``CellMap/vividChroma``): no lit face is.
        public var isVivid: Bool { chroma > CellMap.vividChroma }

        /// The hue of its mean colour in degrees (0 red, 120 green, 240 blue); nil when the mean
        /// is grey.
        public var hue: Double? {
            let most = max(red, green, blue)
            let spread = most - min(red, green, blue)
            guard spread > 0 else { return nil }
            let sixths: Double
            if most == red {
                sixths = (green - blue) / spread
            } else if most == green {
                sixths = (blue - red) / spread + 2
            } else {
                sixths = (red - green) / spread + 4
            }
            let degrees = sixths * 60
            return degrees < 0 ? degrees + 360 : degrees
        }

        /// Whether its mean is clearly a colour no skin has (``CellMap/otherHueChroma`` from grey,
        /// a hue outside ``CellMap/skinHueFrom``–``CellMap/skinHueTo``): sky, foliage, water, a blue
        /// or green backdrop. Grey cells (a black-and-white portrait) and every red, orange and
        /// yellow are not.
        public var hasOtherHue: Bool {
            guard max(red, green, blue) - min(red, green, blue) >= CellMap.otherHueChroma, let hue else { return false }
            return hue > CellMap.skinHueTo && hue < CellMap.skinHueFrom
        }
    }

    /// The cells of an image (squares of ``FaceDetector/cell`` pixels) that look like skin, for the
    /// second look, and those the first search reads: any that could be part of a face.
    public struct CellMap: Sendable, Equatable {
        /// Cells across and down.
        public var columns: Int
        public var rows: Int
        /// Pixels of the image across and down one cell (the last row and column may hold the
        /// image's remainder).
        public var cell: Double
        /// Row by row, `columns * rows` of them: cells that look like skin.
        public var skin: [Bool]
        /// Row by row: cells that could be part of a face: not flat (a plain background), not vivid
        /// (saturated graphics), not of a hue no skin has (sky, foliage).
        public var searchable: [Bool]

        /// Mean per-pixel chroma above which a cell is vivid graphics: skin tones are ~70–130,
        /// saturated pinks, cyans, yellows, reds and blues 230–255, and a cell where two of them
        /// meet, softened by the resize, ~200 (docs/benchmarks/faces.md).
        public static let vividChroma = 170.0
        /// How much more colourful than their mean a cell's pixels may be and still be skin.
        public static let mixedChroma = 40.0
        /// Hues of skin in any light, warm or cool white balance, an arc across red: from
        /// ``skinHueFrom`` through 360 (0) to ``skinHueTo`` degrees. Skin lies near 10–40, lips
        /// and flushed cheeks near 350, skin under warm light up to ~55.
        public static let skinHueFrom = 330.0
        public static let skinHueTo = 70.0
        /// Distance of a cell's mean from grey (max − min of its mean colour) from which its hue
        /// counts: skin's means are 30–90 levels from grey, a grey cell's hue is noise.
        public static let otherHueChroma = 30.0
        /// Standard deviation under which a cell is flat, when its neighbours' means are also
        /// within ``flatStep`` of its own (a smooth gradient, an enlarged face, is not flat).
        public static let flatDeviation = 1.0
        public static let flatStep = 1.5

        public init(columns: Int, rows: Int, cell: Double, skin: [Bool], searchable: [Bool]) {
            self.columns = columns
            self.rows = rows
            self.cell = cell
            self.skin = skin
            self.searchable = searchable
        }

        /// The map of `cells` (row by row, `columns` × `rows`, each `cell` pixels across).
        public init(columns: Int, rows: Int, cell: Double, cells: [Cell]) {
            precondition(cells.count == columns * rows, "one statistic per cell")
            self.columns = columns
            self.rows = rows
            self.cell = cell
            skin = cells.map(\.isSkin)
            searchable = cells.indices.map { at in
                let here = cells[at]
                guard !here.isVivid, !here.hasOtherHue else { return false }
                guard here.deviation < Self.flatDeviation else { return true }
                // Flat, unless a neighbour's mean differs: a smooth gradient.
                let x = at % columns
                func differs(_ other: Int) -> Bool { abs(cells[other].green - here.green) >= Self.flatStep }
                return (x > 0 && differs(at - 1)) || (x + 1 < columns && differs(at + 1))
                    || (at >= columns && differs(at - columns)) || (at + columns < cells.count && differs(at + columns))
            }
        }

        /// Whether the map has one entry per cell in each mask.
        var isWhole: Bool {
            columns > 0 && rows > 0 && skin.count == columns * rows && searchable.count == columns * rows
        }

        /// Whether a mean colour (8-bit sRGB) looks like skin: the usual box in YCbCr (Cb 77–127,
        /// Cr 133–173; Chai and Ngan), and not near black. Light and dark skin both fall in it;
        /// saturated graphics (pure reds, blues, yellows) do not.
        public static func isSkin(red: Double, green: Double, blue: Double) -> Bool {
            let luma = 0.299 * red + 0.587 * green + 0.114 * blue
            let cb = 128 - 0.168736 * red - 0.331264 * green + 0.5 * blue
            let cr = 128 + 0.5 * red - 0.418688 * green - 0.081312 * blue
            return cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173 && luma > 40
        }
    }

    /// Where the first search reads.
    public enum FirstLook: Sendable, Equatable {
        /// All of the image, on one proxy of ``FaceDetector/searchArea`` pixels.
        case wholeImage
        /// Only these regions, at the whole image's proxy scale; none when nothing in the image
        /// could be a face (graphics, a product on a plain background).
        case regions(FaceSearchPlan)
    }

    /// Cells of margin around each area the first search reads (a face's smooth cheek, hair).
    public static let firstMargin = 3
    /// Blocks of this many cells across and down are read by the first search when at least
    /// ``firstDensity`` of their cells are ``CellMap/searchable``: a face is a dense patch of
    /// them, a pattern's edges and a disc's outline are thin lines.
    public static let firstBlock = 8
    public static let firstDensity = 0.35
    /// The share of the image from which the first search reads all of it (one proxy costs less
    /// than many regions covering most of it, and finds what it always found).
    public static let wholeShare = 0.6

    /// The first search for an image of `image` pixels whose whole proxy would be read at `scale`:
    /// the blocks dense in ``CellMap/searchable`` cells (``firstBlock``, ``firstDensity``), their
    /// areas grown by ``firstMargin``, merged, those too small to hold dlib's window at that scale
    /// dropped; the whole image once they cover ``wholeShare`` of it, or when the map does not
    /// fit it.
    public static func firstLook(cells map: CellMap, image: PixelSize, scale: Double) -> FirstLook {
        guard map.isWhole, scale > 0 else { return .wholeImage }
        let dense = denseBlocks(of: map.searchable, columns: map.columns, rows: map.rows)
        let regions = regions(of: dense, in: map, image: image, margin: firstMargin).filter {
            (Double($0.width) * scale).rounded() >= window && (Double($0.height) * scale).rounded() >= window
        }
        let area = regions.reduce(0.0) { $0 + Double($1.width * $1.height) }
        guard area < wholeShare * Double(image.width * image.height) else { return .wholeImage }
        return .regions(FaceSearchPlan(regions: regions, scale: scale))
    }

    /// The plan for an image of `image` pixels whose first search read `firstScale` proxy pixels
    /// per image pixel, looking for faces from `smallestFace` pixels of the image: the skin cells
    /// inside the blocks dense in ``CellMap/searchable`` cells (those ``firstLook(cells:image:scale:)``
    /// reads; skin-toned edges of graphics are not), their areas' boxes (grown by ``margin``), merged; on
    /// the pyramid's levels finer than `firstScale` only, since the first search read the coarser
    /// ones there (or the whole image). Nil when the image is not a banner (``looksAgain(at:)``),
    /// when the first search already read the image finely enough, when no such cell looks like
    /// skin, or when the budget leaves the regions no finer than the first search did.
    public static func plan(
        cells map: CellMap, image: PixelSize, firstScale: Double, smallestFace: Double, budget: Double = budget
    ) -> FaceSearchPlan? {
        guard smallestFace > 0, firstScale > 0, firstScale.isFinite, map.isWhole, looksAgain(at: image) else { return nil }
        let wanted = window / smallestFace
        // Finer than the first search by a fifth at least, else it saw these faces already.
        let finest = firstScale * 1.2
        guard wanted > finest else { return nil }
        let dense = denseBlocks(of: map.searchable, columns: map.columns, rows: map.rows)
        let regions = regions(of: zip(map.skin, dense).map { $0 && $1 }, in: map, image: image, margin: margin)
        let area = regions.reduce(0.0) { $0 + Double($1.width * $1.height) }
        guard area > 0 else { return nil }
        let scale = min(wanted, (budget / area).squareRoot())
        guard scale > finest else { return nil }
        // A region smaller than the window at that scale cannot hold a face the model finds.
        let searched = regions.filter {
            (Double($0.width) * scale).rounded() >= window && (Double($0.height) * scale).rounded() >= window
        }
        guard !searched.isEmpty else { return nil }
        return FaceSearchPlan(regions: searched, scale: scale, levels: levels(from: scale, above: firstScale))
    }

    /// How many levels of the pyramid from `scale` down (each ``pyramidStep`` of the one before)
    /// are finer than `coarsest` (> 0): at least one.
    static func levels(from scale: Double, above coarsest: Double) -> Int {
        precondition(coarsest > 0, "levels above a positive scale")
        var count = 1
        while scale * pow(pyramidStep, Double(count)) > coarsest { count += 1 }
        return count
    }

    /// `mask` (`columns` × `rows` cells, row by row) with every block of `block` × `block` cells
    /// (the last ones cut by the edges) wholly set when at least `density` of its cells are, and
    /// wholly clear when not.
    static func denseBlocks(
        of mask: [Bool], columns: Int, rows: Int, block: Int = firstBlock, density: Double = firstDensity
    ) -> [Bool] {
        guard block > 0, mask.count == columns * rows else { return mask }
        var dense = [Bool](repeating: false, count: mask.count)
        for top in stride(from: 0, to: rows, by: block) {
            for left in stride(from: 0, to: columns, by: block) {
                let ys = top..<min(rows, top + block)
                let xs = left..<min(columns, left + block)
                var set = 0
                for y in ys { for x in xs where mask[y * columns + x] { set += 1 } }
                guard Double(set) >= density * Double(ys.count * xs.count) else { continue }
                for y in ys { for x in xs { dense[y * columns + x] = true } }
            }
        }
        return dense
    }

    /// The areas of `mask` (cells of `map`) as disjoint pixel rects of an image of `image` pixels:
    /// each area's box grown by `margin` cells, clamped inside the image, overlapping ones merged.
    static func regions(of mask: [Bool], in map: CellMap, image: PixelSize, margin: Int) -> [PixelRect] {
        merged(
            areas(of: mask, columns: map.columns, rows: map.rows).map { cells in
                let left = max(0, Int((Double(cells.x - margin) * map.cell).rounded(.down)))
                let top = max(0, Int((Double(cells.y - margin) * map.cell).rounded(.down)))
                let right = min(image.width, Int((Double(cells.x + cells.width + margin) * map.cell).rounded(.up)))
                let bottom = min(image.height, Int((Double(cells.y + cells.height + margin) * map.cell).rounded(.up)))
                return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
            }.filter { $0.width > 0 && $0.height > 0 })
    }

    /// The bounding boxes (in cells) of `mask`'s areas (`columns` × `rows` cells, row by row),
    /// cells joined by their sides, in the order their first cell is met row by row.
    static func areas(of mask: [Bool], columns: Int, rows: Int) -> [PixelRect] {
        guard columns > 0, rows > 0, mask.count == columns * rows else { return [] }
        var seen = [Bool](repeating: false, count: mask.count)
        var boxes: [PixelRect] = []
        for start in mask.indices where mask[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var (minX, minY, maxX, maxY) = (Int.max, Int.max, Int.min, Int.min)
            while let at = stack.popLast() {
                let x = at % columns
                let y = at / columns
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
                func visit(_ next: Int) {
                    if mask[next] && !seen[next] {
                        seen[next] = true
                        stack.append(next)
                    }
                }
                if x > 0 { visit(at - 1) }
                if x + 1 < columns { visit(at + 1) }
                if y > 0 { visit(at - columns) }
                if y + 1 < rows { visit(at + columns) }
            }
            boxes.append(PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1))
        }
        return boxes
    }

    /// `rects` with every two that overlap replaced by their bounding box, until none overlap:
    /// each rect in turn absorbs those kept so far that it overlaps (growing as it does), so the
    /// work is about the square of the count, not its cube.
    static func merged(_ rects: [PixelRect]) -> [PixelRect] {
        var kept: [PixelRect] = []
        for rect in rects {
            var grown = rect
            var absorbed = true
            while absorbed {
                absorbed = false
                if let at = kept.firstIndex(where: { overlap($0, grown) }) {
                    let other = kept.remove(at: at)
                    let left = min(grown.x, other.x)
                    let top = min(grown.y, other.y)
                    grown = PixelRect(
                        x: left, y: top, width: max(grown.x + grown.width, other.x + other.width) - left,
                        height: max(grown.y + grown.height, other.y + other.height) - top)
                    absorbed = true
                }
            }
            kept.append(grown)
        }
        return kept
    }

    static func overlap(_ a: PixelRect, _ b: PixelRect) -> Bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }
}
