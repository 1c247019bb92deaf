/// The second look for faces too small for the whole image's proxy (a group photo in one end of a
/// wide banner): pure, no pixels.
///
/// The first search reads the whole image reduced to ``FaceDetector/searchArea`` pixels, where
/// dlib's detector finds faces from ~80 px of the proxy: a face of ~165 px in a 2400×800 banner.
/// When it finds none, the places that look like skin on a map of 8 px cells (``SkinMap``) are
/// searched again, each region enlarged so a face of ``smallestSourceFace`` pixels of the source
/// reaches the detector's window, all regions together at most ``budget`` pixels (the scale is
/// lowered to fit, so the CPU stays bounded: docs/benchmarks/faces.md). An image without
/// skin-coloured areas (graphics, a grey photo) gets no second look.
public struct FaceSearchPlan: Sendable, Equatable {
    /// The regions to search, in pixels of the image, disjoint.
    public var regions: [PixelRect]
    /// How many times their size they are searched.
    public var scale: Double

    /// Smallest face worth keeping, in pixels of the source image (its width).
    public static let smallestSourceFace = 40.0
    /// Face width, in searched pixels, from which dlib's model finds faces (its 80 px window).
    public static let window = 80.0
    /// Pixels searched by the second look at most, all regions together, at the scale searched.
    public static let budget = 900_000.0
    /// Cells of margin around each skin-coloured area (a face's edge, hair).
    public static let margin = 2
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

    /// Which cells of an image look like skin: its mean colour in each cell of `cell` pixels.
    public struct SkinMap: Sendable, Equatable {
        /// Cells across and down.
        public var columns: Int
        public var rows: Int
        /// Pixels of the image across and down one cell (the last row and column may hold the
        /// image's remainder).
        public var cell: Double
        /// Row by row, `columns * rows` of them.
        public var skin: [Bool]

        public init(columns: Int, rows: Int, cell: Double, skin: [Bool]) {
            self.columns = columns
            self.rows = rows
            self.cell = cell
            self.skin = skin
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

    /// The plan for an image of `image` pixels whose first search read `firstScale` proxy pixels
    /// per image pixel, looking for faces from `smallestFace` pixels of the image; nil when the
    /// image is not a banner (``looksAgain(at:)``), when the
    /// first search already read the image finely enough, when no cell looks like skin, or when
    /// the budget leaves the regions no finer than the first search did.
    public static func plan(
        skin map: SkinMap, image: PixelSize, firstScale: Double, smallestFace: Double, budget: Double = budget
    ) -> FaceSearchPlan? {
        guard smallestFace > 0, looksAgain(at: image) else { return nil }
        let wanted = window / smallestFace
        // Finer than the first search by a fifth at least, else it saw these faces already.
        let finest = firstScale * 1.2
        guard wanted > finest else { return nil }
        let regions = merged(areas(of: map).map { cells in
            let left = max(0, Int((Double(cells.x - margin) * map.cell).rounded(.down)))
            let top = max(0, Int((Double(cells.y - margin) * map.cell).rounded(.down)))
            let right = min(image.width, Int((Double(cells.x + cells.width + margin) * map.cell).rounded(.up)))
            let bottom = min(image.height, Int((Double(cells.y + cells.height + margin) * map.cell).rounded(.up)))
            return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
        }.filter { $0.width > 0 && $0.height > 0 })
        let area = regions.reduce(0.0) { $0 + Double($1.width * $1.height) }
        guard area > 0 else { return nil }
        let scale = min(wanted, (budget / area).squareRoot())
        guard scale > finest else { return nil }
        // A region smaller than the window at that scale cannot hold a face the model finds.
        let searched = regions.filter {
            (Double($0.width) * scale).rounded() >= window && (Double($0.height) * scale).rounded() >= window
        }
        guard !searched.isEmpty else { return nil }
        return FaceSearchPlan(regions: searched, scale: scale)
    }

    /// The bounding boxes (in cells) of the map's skin-coloured areas, cells joined by their sides,
    /// in the order their first cell is met row by row.
    static func areas(of map: SkinMap) -> [PixelRect] {
        guard map.columns > 0, map.rows > 0, map.skin.count == map.columns * map.rows else { return [] }
        var seen = [Bool](repeating: false, count: map.skin.count)
        var boxes: [PixelRect] = []
        for start in map.skin.indices where map.skin[start] && !seen[start] {
            var stack = [start]
            seen[start] = true
            var (minX, minY, maxX, maxY) = (Int.max, Int.max, Int.min, Int.min)
            while let at = stack.popLast() {
                let x = at % map.columns
                let y = at / map.columns
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
                where nx >= 0 && ny >= 0 && nx < map.columns && ny < map.rows {
                    let next = ny * map.columns + nx
                    if map.skin[next] && !seen[next] {
                        seen[next] = true
                        stack.append(next)
                    }
                }
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
