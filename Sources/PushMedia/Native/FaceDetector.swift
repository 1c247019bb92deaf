import CFaceDetect
import CVips
import PushMediaModel

/// Frontal faces through dlib's HOG detector (`CFaceDetect`, compiled in, its model decoded once
/// per process from `frontal_face_model.h`, no model file).
/// Only ever given a small proxy: the search costs 50-100 ms of CPU on a 512 px one (BENCHMARKS.md).
enum FaceDetector {
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

    /// The faces in `image` (any band count; alpha is ignored) as unit rects of it, clamped
    /// inside it, surest first. `upsample` doubles the image that many times first (dlib's
    /// smallest face is about 80 px, so 40 px after one doubling).
    static func detect(in image: Vips.Image, upsample: Int = 1) throws -> [UnitRect] {
        var grey = try image.colourspace(VIPS_INTERPRETATION_B_W)
        if grey.bands > 1 { grey = try grey.extractBands(0, count: 1) }
        if grey.bandFormat != VIPS_FORMAT_UCHAR { grey = try grey.cast(VIPS_FORMAT_UCHAR) }
        let memory = try grey.memoryBytes()
        let width = grey.width
        let height = grey.height
        guard memory.count >= width * height else {
            throw Failure(message: "grey proxy is \(memory.count) bytes, expected \(width * height)")
        }
        var boxes = [pm_face_box](repeating: pm_face_box(), count: maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let count = memory.withUnsafeBytes { raw in
            pm_detect_faces(
                raw.bindMemory(to: UInt8.self).baseAddress, Int32(width), Int32(height), Int32(width), Int32(upsample),
                &boxes, Int32(maxFaces), &message, message.count)
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
}
