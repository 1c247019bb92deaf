import CPushMediaShims
import CVips
import Foundation

extension Vips.Image {
    /// Frames of a multi-page image (stacked vertically with `page-height`), each its own image.
    func frames(pageHeight: Int) throws -> [Vips.Image] {
        let count = max(1, height / max(1, pageHeight))
        return try (0..<count).map { try extractArea(left: 0, top: $0 * pageHeight, width: width, height: pageHeight) }
    }

    /// Frames joined top to bottom into one animation image with its timing.
    static func animation(frames: [Vips.Image], delays: [Int], loop: Int) throws -> Vips.Image {
        guard let first = frames.first else { throw Vips.Error(operation: "arrayjoin", message: "no frames") }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map { $0.pointer }
        let joined = try Vips.call("arrayjoin") { out in
            pointers.withUnsafeMutableBufferPointer { pm_arrayjoin($0.baseAddress, Int32(frames.count), out, 1) }
        }
        let result = try Vips.call("copy") { pm_copy(joined.pointer, $0) }
        vips_image_set_int(result.pointer, "page-height", Int32(first.height))
        vips_image_set_int(result.pointer, "loop", Int32(loop))
        var delays32 = delays.map { Int32(clamping: $0) }
        vips_image_set_array_int(result.pointer, "delay", &delays32, Int32(delays32.count))
        return result
    }

    /// Standard deviation over all bands (how much is going on in the image).
    func deviation() throws -> Double {
        var value = 0.0
        guard pm_deviate(pointer, &value) == 0 else { throw Vips.Error(operation: "deviate", message: Vips.takeError()) }
        return value
    }

    /// Stops evaluation of this image (and images computed from it) once `deadline` passes.
    func stopEvaluation(at deadline: ContinuousClock.Instant) {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let micros = remaining.components.seconds * 1_000_000 + remaining.components.attoseconds / 1_000_000_000_000
        pm_image_set_deadline(pointer, g_get_monotonic_time() + gint64(micros))
    }

    /// libimagequant's effort for GIFs (1…10, libvips' default 7). Quantising every frame of both
    /// variants, and again on each rung of the budget ladder, was half of an animation's time;
    /// at 3 it is much faster for a barely visible loss (dithering hides it).
    static let gifEffort = 3

    /// An animated GIF with 2^bits colours (libvips' cgif saver).
    func gifData(paletteBits: Int) throws -> Data {
        try Vips.saveBuffer("gifsave") { buffer, length in
            pm_gifsave_buffer(pointer, buffer, length, Int32(paletteBits), Int32(Self.gifEffort))
        }
    }
}

extension Vips.Image {
    /// Seeded 8-bit sRGB noise: the hardest content to compress (tests and benchmarks).
    static func noise(width: Int, height: Int, sigma: Double = 40, seed: Int = 1) throws -> Vips.Image {
        try Vips.start()
        return try Vips.call("noise") { pm_noise_rgb($0, Int32(width), Int32(height), sigma, Int32(seed)) }
    }
}
