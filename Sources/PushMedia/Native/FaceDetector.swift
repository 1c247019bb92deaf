import CFaceDetect
import CVips
import PushMediaModel

/// Frontal faces through dlib's HOG detector (`CFaceDetect`, compiled in, its model decoded once
/// per process from `frontal_face_model.h`, no model file).
/// It searches a softened grey proxy of about ``searchArea`` pixels: ~20 ms of CPU with AVX2,
/// ~30 ms without (BENCHMARKS.md, "Faces").
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

    /// Why detection failed: libvips could not make the grey pixels, or dlib reported an error.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Whether the model compiled into `CFaceDetect` is byte for byte the one dlib's header ships
    /// (nil when the comparison failed). Slow: it undoes dlib's own compression.
    static var embeddedModelIsDlibs: Bool? {
        switch pm_face_model_is_dlibs() {
        case 1: true
        case 0: false
        default: nil
        }
    }

    /// Faces reported at most; more are dropped (the lowest scores).
    static let maxFaces = 32

    /// Pixels of the grey proxy searched (775×581 for a 4:3 image, 1162×387 for a 3:1 banner).
    /// dlib finds faces from about 80 px, so from 1/7 of a 4:3 image's short side and 1/5 of a
    /// 3:1 banner's; the search's CPU grows with the area. Smaller images are searched as they are.
    static let searchArea = 450_000

    /// The faces in `image` (any band count; alpha is ignored) as unit rects of it, clamped
    /// inside it, surest first, found by `build` (the CPU's best when nil).
    static func detect(in image: Vips.Image, build: SearchBuild? = nil) throws -> [UnitRect] {
        let grey = try searchProxy(of: image)
        let memory = try grey.memoryBytes()
        let width = grey.width
        let height = grey.height
        guard memory.count >= width * height else {
            throw Failure(message: "grey proxy is \(memory.count) bytes, expected \(width * height)")
        }
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let count = memory.withUnsafeBytes { raw in
            pm_detect_faces_with(
                build?.choice ?? PM_FACE_SEARCH_AUTOMATIC, raw.bindMemory(to: UInt8.self).baseAddress, Int32(width),
                Int32(height), Int32(width), &boxes, Int32(maxFaces), &message, message.count)
        }
        guard count >= 0 else {
            throw Failure(message: "face detection: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return boxes.prefix(min(Int(count), maxFaces)).compactMap { box in
            let left = max(0, min(width, Int(box.x)))
            let top = max(0, min(height, Int(box.y)))
            let right = max(left, min(width, Int(box.x) + Int(box.width)))
            let bottom = max(top, min(height, Int(box.y) + Int(box.height)))
            guard right > left, bottom > top else { return nil }
            return UnitRect(
                x: Double(left) / Double(width), y: Double(top) / Double(height),
                w: Double(right - left) / Double(width), h: Double(bottom - top) / Double(height))
        }
    }

    /// The grey proxy of about ``searchArea`` pixels the search reads (`pm_detect_faces` blurs it
    /// slightly first). Grey is the green band of an RGB image (most of its luminance; cheaper
    /// than a colour conversion), reduced with a linear kernel.
    static func searchProxy(of image: Vips.Image) throws -> Vips.Image {
        var grey =
            image.bands >= 3 && image.interpretation == VIPS_INTERPRETATION_sRGB
            ? try image.extractBands(1, count: 1)
            : try image.colourspace(VIPS_INTERPRETATION_B_W).extractBands(0, count: 1)
        if grey.bandFormat != VIPS_FORMAT_UCHAR { grey = try grey.cast(VIPS_FORMAT_UCHAR) }
        let factor = (Double(searchArea) / (Double(grey.width) * Double(grey.height))).squareRoot()
        return factor < 1 ? try grey.resize(horizontal: factor, vertical: factor, kernel: .linear) : grey
    }
}
