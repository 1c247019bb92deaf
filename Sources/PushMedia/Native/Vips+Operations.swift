import CReduce
import CVips
import CVipsShims
import Foundation

extension Vips {
    /// How a crop finds the interesting part of an image (libvips' `VipsInteresting`).
    enum Interesting {
        case centre, entropy, attention

        var value: CVips.VipsInteresting {
            switch self {
            case .centre: VIPS_INTERESTING_CENTRE
            case .entropy: VIPS_INTERESTING_ENTROPY
            case .attention: VIPS_INTERESTING_ATTENTION
            }
        }
    }
}

extension Vips.Image {
    func colourspace(_ space: VipsInterpretation) throws -> Vips.Image {
        try Vips.call("colourspace") { pm_colourspace(pointer, $0, space) }
    }

    func cast(_ format: VipsBandFormat) throws -> Vips.Image {
        try Vips.call("cast") { pm_cast(pointer, $0, format) }
    }

    func extractArea(left: Int, top: Int, width: Int, height: Int) throws -> Vips.Image {
        try Vips.call("extract_area") {
            pm_extract_area(pointer, $0, Int32(left), Int32(top), Int32(width), Int32(height))
        }
    }

    func extractBands(_ first: Int, count: Int) throws -> Vips.Image {
        try Vips.call("extract_band") { pm_extract_band(pointer, $0, Int32(first), Int32(count)) }
    }

    /// Resize by the two scales with Lanczos3; the kernel does the whole reduction down to 1/16
    /// (libvips' box pre-shrink only below: see `pm_resize`).
    func resize(horizontal: Double, vertical: Double) throws -> Vips.Image {
        try Vips.call("resize") { pm_resize(pointer, $0, horizontal, vertical, VIPS_KERNEL_LANCZOS3) }
    }

    /// Box-shrunk by a whole `factor` on both axes (each pixel the mean of a block); lazy, and
    /// cheap to build, unlike a Lanczos resize whose kernel grows with the factor.
    func shrunk(by factor: Int) throws -> Vips.Image {
        guard factor > 1 else { return self }
        return try Vips.call("shrink") { pm_shrink(pointer, $0, Int32(factor), Int32(factor)) }
    }

    /// Reduced to `height` rows with libvips' vertical Lanczos3 (its vector path); lazy.
    func reducedHeight(to height: Int) throws -> Vips.Image {
        try Vips.call("reducev") { pm_reduce_height(pointer, $0, Int32(height)) }
    }

    /// Reduced to `width` columns with a Lanczos3 filter, computed now into memory from this
    /// image's 8-bit pixels (`pm_reduce_width`: five times faster than libvips' reduceh), by
    /// at most 16 (beyond, the fixed-point weights round away: it throws).
    /// `vectorized: false` runs the plain C loop alone (the vector loop gives the same bytes).
    func reducedWidth(to width: Int, vectorized: Bool = true) throws -> Vips.Image {
        try Vips.call("reduce_width") { pm_reduce_width(pointer, $0, Int32(width), vectorized ? 1 : 0) }
    }

    /// Reduced to `size` (at most this image's) with Lanczos3 and computed into memory: the
    /// whole image through ``reduced(_:to:until:vectorized:)``.
    func reduced(to size: PixelSize, until deadline: Deadline? = nil) throws -> Vips.Image {
        try reduced(PixelRect(x: 0, y: 0, width: width, height: height), to: size, until: deadline)
    }

    /// Whether the pixels are in memory (decoded, or computed by ``copyMemory()``), not computed on
    /// demand by a pipeline. (libvips' memory is there from `vips_image_write_prepare` on, before
    /// an image being written is complete; no such image reaches PushMedia's callers.)
    var isInMemory: Bool { pointer.pointee.data != nil }

    /// `rect` of this image reduced to `size` (at most the rect's) with Lanczos3 and computed
    /// into memory, the way ``DecodePath/reduction(eightBit:inMemory:from:to:)`` chooses:
    /// - `inPlace`: `pm_reduce_area`, each output row summed down from the rect's rows, then
    ///   across (``reducedWidth(to:vectorized:)``'s loop), on the calling thread: no libvips
    ///   pipeline, worker thread or run-time compiled (orc) reducev, and exact Lanczos3 weights
    ///   where libvips' 8-bit reducev places its kernel to 1/64 px.
    /// - `downThenAcross` (a loader's lazy output, read once as the reduction pulls it): libvips'
    ///   reducev into memory, then ``reducedWidth(to:vectorized:)``.
    /// - `resize`: libvips' resize.
    /// `deadline` stops the computation; `vectorized: false` runs the plain C loops alone.
    func reduced(
        _ rect: PixelRect, to size: PixelSize, until deadline: Deadline? = nil, vectorized: Bool = true
    ) throws -> Vips.Image {
        let path = DecodePath.reduction(
            eightBit: bandFormat == VIPS_FORMAT_UCHAR, inMemory: isInMemory, from: rect.size, to: size)
        if path == .inPlace {
            return try Vips.call("reduce_area") {
                pm_reduce_area(
                    pointer, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), Int32(size.width),
                    Int32(size.height), deadline.native, vectorized ? 1 : 0, $0)
            }
        }
        let area =
            rect == PixelRect(x: 0, y: 0, width: width, height: height)
            ? self : try extractArea(left: rect.x, top: rect.y, width: rect.width, height: rect.height)
        guard path == .downThenAcross else {
            let resized = try area.resize(
                horizontal: Double(size.width) / Double(rect.width), vertical: Double(size.height) / Double(rect.height))
            if let deadline { resized.stopEvaluation(at: deadline) }
            return try resized.copyMemory()
        }
        let tall = size.height < rect.height ? try area.reducedHeight(to: size.height) : area
        if let deadline { tall.stopEvaluation(at: deadline) }
        let inMemory = try tall.copyMemory()
        return size.width < rect.width ? try inMemory.reducedWidth(to: size.width) : inMemory
    }

    /// Upright by the EXIF orientation, the tag dropped.
    func autorotated() throws -> Vips.Image {
        try Vips.call("autorot") { pm_autorot(pointer, $0) }
    }

    /// Resized by the two scales with libvips' defaults (Lanczos3 after a box pre-shrink below
    /// 1/4): the call `vips_smartcrop`'s attention makes its 32×32 map with, for ``Attention``.
    func resizedAsLibvipsDefaults(horizontal: Double, vertical: Double) throws -> Vips.Image {
        try Vips.call("resize") { pm_resize_default(pointer, $0, horizontal, vertical) }
    }

    /// libvips' smartcrop, returning the crop and the attention centre it used.
    func smartcrop(width: Int, height: Int, interesting: Vips.Interesting) throws -> (
        image: Vips.Image, attentionX: Int, attentionY: Int
    ) {
        var x: Int32 = 0
        var y: Int32 = 0
        let image = try Vips.call("smartcrop") {
            pm_smartcrop(pointer, $0, Int32(width), Int32(height), interesting.value, &x, &y)
        }
        return (image, Int(x), Int(y))
    }

    /// Renders the image into memory, so later operations read decoded pixels.
    func copyMemory() throws -> Vips.Image {
        guard let image = vips_image_copy_memory(pointer) else {
            throw Vips.Error(operation: "decode", message: Vips.takeError())
        }
        return Vips.Image(owning: image)
    }

    func minimum() throws -> Double {
        var value = 0.0
        guard pm_min(pointer, &value) == 0 else { throw Vips.Error(operation: "min", message: Vips.takeError()) }
        return value
    }

    /// The band values of one pixel.
    func pixel(x: Int, y: Int) throws -> [Double] {
        var values = [Double](repeating: 0, count: 16)
        var count: Int32 = 0
        guard pm_getpoint(pointer, Int32(x), Int32(y), &values, 16, &count) == 0 else {
            throw Vips.Error(operation: "getpoint", message: Vips.takeError())
        }
        return Array(values.prefix(Int(count)))
    }

    func jpegData(quality: Int, optimizeCoding: Bool = true, progressive: Bool = false) throws -> Data {
        try Vips.saveBuffer("jpegsave") { buffer, length in
            pm_jpegsave_buffer(pointer, buffer, length, Int32(quality), optimizeCoding ? 1 : 0, progressive ? 1 : 0)
        }
    }

    /// True-colour PNG.
    func pngData(compression: Int) throws -> Data {
        try Vips.saveBuffer("pngsave") { buffer, length in pm_pngsave_buffer(pointer, buffer, length, Int32(compression)) }
    }

    /// PNG quantised by libimagequant to a palette of 2^bits colours, at its quality and effort.
    func pngData(compression: Int, paletteBits: Int, quality: Int, effort: Int) throws -> Data {
        try Vips.saveBuffer("pngsave") { buffer, length in
            pm_pngsave_palette_buffer(
                pointer, buffer, length, Int32(compression), Int32(paletteBits), Int32(quality), Int32(effort))
        }
    }
}

extension Vips {
    /// Runs a `*save_buffer` call and moves its g_malloc'd buffer into `Data`.
    static func saveBuffer(
        _ operation: String,
        _ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard body(&buffer, &length) == 0, let buffer else {
            throw Error(operation: operation, message: takeError())
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }
}
