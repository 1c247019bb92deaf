import CFaceDetect
import CVips
import PushMediaModel

/// Frontal faces through dlib's HOG detector (`CFaceDetect`, compiled in, its model decoded once
/// per process from `frontal_face_model.h`, no model file), as ``FaceSearchSettings`` and
/// ``FaceSearchPlan`` say. It searches a softened grey proxy (``FaceSearchSettings/proxySize(of:)``),
/// made in `CFaceDetect` from the image's memory: ~14 ms of CPU a case-1 photo with AVX2
/// (docs/benchmarks/faces.md, and docs/benchmarks/still-images.md, "The face search's filters").
enum FaceDetector {
    /// The build of the search that runs: dlib's templates compiled for any CPU, or for AVX2 and
    /// FMA (x86-64; a third fewer instructions, the same faces).
    enum SearchBuild: Sendable {
        case portable
        case avx2

        /// The build `pm_detect_faces` picks on this CPU.
        static var automatic: SearchBuild {
            pm_face_search_build(PM_FACE_SEARCH_AUTOMATIC) == Int32(PM_FACE_SEARCH_AVX2.rawValue) ? .avx2 : .portable
        }

        /// Whether this CPU can run the build.
        var isAvailable: Bool { pm_face_search_build(choice) >= 0 }

        var choice: pm_face_search_choice {
            switch self {
            case .portable: PM_FACE_SEARCH_PORTABLE
            case .avx2: PM_FACE_SEARCH_AVX2
            }
        }
    }

    /// Why detection failed: `pm_detect_faces` refused the image or dlib reported an error (libvips'
    /// own failures, making the grey band or reading the pixels, throw ``Vips/Error``).
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Decodes the model compiled in (once per process; the first search would otherwise), by
    /// searching a one-pixel image.
    static func loadModel() {
        _ = try? search(Vips.Image.fromRGB([0, 0, 0], width: 1, height: 1))
    }

    /// What one search found: the faces, and the size of the proxy it read.
    struct Search {
        /// The faces as unit rects of the image, clamped inside it, surest first.
        var faces: [UnitRect]
        /// The proxy `pm_detect_faces` searched (``FaceSearchSettings/proxySize(of:)``).
        var searched: PixelSize
    }

    /// The faces in `image` (any band count; alpha is ignored) as unit rects of it, clamped
    /// inside it, surest first, found by `build` (the CPU's best when nil).
    static func detect(in image: Vips.Image, build: SearchBuild? = nil) throws -> [UnitRect] {
        try search(image, build: build).faces
    }

    /// Searches `image`: `pm_detect_faces` reduces the band ``searchedBand(of:)`` names to
    /// ``FaceSearchSettings/proxySize(of:)``, blurs it slightly and runs dlib's model on it.
    static func search(_ image: Vips.Image, build: SearchBuild? = nil) throws -> Search {
        let maxFaces = FaceSearchSettings.maxFaces
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let searched = FaceSearchSettings.proxySize(of: PixelSize(width: image.width, height: image.height))
        let count = try withSearchedImage(of: image) { request in
            return pm_detect_faces_with(
                build?.choice ?? PM_FACE_SEARCH_AUTOMATIC, request, Int32(searched.width), Int32(searched.height),
                FaceSearchSettings.minimumScore, &boxes, Int32(maxFaces), &message, message.count)
        }
        guard count >= 0 else {
            throw Failure(message: "face detection: \(String(cBuffer: message))")
        }
        return Search(faces: unitRects(boxes.prefix(min(Int(count), maxFaces)), in: searched), searched: searched)
    }

    /// The second look (``FaceSearchPlan``): faces in `plan`'s regions of `image`, each read at
    /// `plan.scale` times its size on `plan.levels` levels of the pyramid, as unit rects of the
    /// image, clamped inside it, surest first.
    static func search(_ image: Vips.Image, in plan: FaceSearchPlan, build: SearchBuild? = nil) throws -> [UnitRect] {
        let maxFaces = FaceSearchSettings.maxFaces
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let regions = plan.regions.map {
            pm_face_region(x: Int32($0.x), y: Int32($0.y), width: Int32($0.width), height: Int32($0.height))
        }
        let count = try withSearchedImage(of: image) { request in
            return pm_detect_faces_in_regions_with(
                build?.choice ?? PM_FACE_SEARCH_AUTOMATIC, request, regions, Int32(regions.count), plan.scale,
                Int32(clamping: plan.levels ?? 0), FaceSearchSettings.minimumScore, &boxes, Int32(maxFaces), &message,
                message.count)
        }
        guard count >= 0 else {
            throw Failure(message: "face detection: \(String(cBuffer: message))")
        }
        return unitRects(boxes.prefix(min(Int(count), maxFaces)), in: PixelSize(width: image.width, height: image.height))
    }

    /// The statistics of `image`'s cells of ``FaceSearchSettings/cell`` pixels (the last row and column hold the
    /// remainder), read in one pass by `pm_face_cells`: what ``FaceSearchPlan`` plans both looks
    /// from. An image that is not 8-bit sRGB is read as the grey band the search reads (no skin).
    static func cells(of image: Vips.Image) throws -> FaceSearchPlan.CellMap {
        let cell = FaceSearchSettings.cell
        let columns = (image.width + cell - 1) / cell
        let rows = (image.height + cell - 1) / cell
        var stats = [pm_face_cell](repeating: pm_face_cell(), count: columns * rows)
        var message = [CChar](repeating: 0, count: 256)
        let status = try withSearchedImage(of: image) { request in
            return pm_face_cells(request, Int32(cell), &stats, Int32(columns), Int32(rows), &message, message.count)
        }
        guard status == 0 else {
            throw Failure(message: "face detection: \(String(cBuffer: message))")
        }
        return FaceSearchPlan.CellMap(
            columns: columns, rows: rows, cell: Double(cell),
            cells: stats.map {
                FaceSearchPlan.Cell(
                    red: Double($0.red), green: Double($0.green), blue: Double($0.blue), chroma: Double($0.chroma),
                    deviation: Double($0.deviation))
            })
    }

    /// `boxes` in pixels of an image of `size` as unit rects of it, clamped inside it.
    static func unitRects(_ boxes: some Sequence<pm_face_box>, in size: PixelSize) -> [UnitRect] {
        let width = size.width
        let height = size.height
        return boxes.compactMap { box -> UnitRect? in
            let left = max(0, min(width, Int(box.x)))
            let top = max(0, min(height, Int(box.y)))
            let right = max(left, min(width, Int(box.x) + Int(box.width)))
            let bottom = max(top, min(height, Int(box.y) + Int(box.height)))
            guard right > left, bottom > top else { return nil }
            return UnitRect(
                x: Double(left) / Double(width), y: Double(top) / Double(height),
                width: Double(right - left) / Double(width), height: Double(bottom - top) / Double(height))
        }
    }

    /// Runs `body` with `image`'s searched band (``searchedBand(of:)``) described for `CFaceDetect`:
    /// the one place its memory is handed to C.
    static func withSearchedImage<Result>(
        of image: Vips.Image, _ body: (UnsafePointer<pm_face_image>) throws -> Result
    ) throws -> Result {
        let (grey, band) = try searchedBand(of: image)
        return try grey.withMemoryBytes { pixels in
            var request = pm_face_image(
                pixels: pixels.baseAddress, width: Int32(grey.width), height: Int32(grey.height),
                stride: Int32(grey.width * grey.bands), bands: Int32(grey.bands), band: Int32(band))
            return try body(&request)
        }
    }

    /// The 8-bit image and band the search reads: an sRGB image's green band as it is (most of
    /// its luminance; cheaper than a colour conversion), else the image converted to one grey
    /// band.
    static func searchedBand(of image: Vips.Image) throws -> (image: Vips.Image, band: Int) {
        if image.bands >= 3 && image.interpretation == VIPS_INTERPRETATION_sRGB && image.bandFormat == VIPS_FORMAT_UCHAR {
            return (image, 1)
        }
        var grey = try image.colourspace(VIPS_INTERPRETATION_B_W).extractBands(0, count: 1)
        if grey.bandFormat != VIPS_FORMAT_UCHAR { grey = try grey.cast(VIPS_FORMAT_UCHAR) }
        return (grey, 0)
    }
}
