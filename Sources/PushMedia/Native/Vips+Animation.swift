import CPushMediaShims
import CVips
import Foundation

extension Vips.Image {
    /// Frames of a multi-page image (stacked vertically with `page-height`), each its own image.
    func frames(pageHeight: Int) throws -> [Vips.Image] {
        let count = max(1, height / max(1, pageHeight))
        return try (0..<count).map { try extractArea(left: 0, top: $0 * pageHeight, width: width, height: pageHeight) }
    }

    /// Frames of one size joined top to bottom into one animation image with its timing (read
    /// one frame at a time, like ``animation(count:delays:loop:frame:)``).
    static func animation(frames: [Vips.Image], delays: [Int], loop: Int) throws -> Vips.Image {
        guard !frames.isEmpty else { throw Vips.Error(operation: "join_frames", message: "no frames") }
        return try animation(count: frames.count, delays: delays, loop: loop) { frames[$0] }
    }

    /// `count` frames of one size joined top to bottom into one animation image with its timing,
    /// each made by `frame` only when the image's consumer reaches its rows and dropped when it
    /// moves on (`pm_join_frames`), so memory holds one frame's pipeline at a time, not `count`.
    /// `frame` runs on libvips' threads, so it only builds libvips operations from its inputs.
    static func animation(
        count: Int, delays: [Int], loop: Int, frame: @escaping (Int) throws -> Vips.Image
    ) throws -> Vips.Image {
        let maker = Unmanaged.passRetained(FrameMaker(frame)).toOpaque()
        let joined = try Vips.call("join_frames") { out in
            pm_join_frames(Int32(count), { index, context in
                let maker = Unmanaged<FrameMaker>.fromOpaque(context!).takeUnretainedValue()
                do {
                    let image = try maker.make(Int(index))
                    g_object_ref(image.pointer)
                    return image.pointer
                } catch {
                    pm_vips_error("join_frames", "frame \(index): \(error)")
                    return nil
                }
            }, maker, { context in
                Unmanaged<FrameMaker>.fromOpaque(context!).release()
            }, out)
        }
        // A new header around the same pixels, so the timing is set without touching `joined`.
        let result = try Vips.call("copy") { pm_copy(joined.pointer, $0) }
        vips_image_set_int(result.pointer, "page-height", Int32(joined.height / max(1, count)))
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
        pm_image_set_deadline(pointer, g_get_monotonic_time() + gint64(deadline.nanosecondsFromNow / 1000))
    }

    /// Sets libvips' kill flag on this image once `deadline` passes while `body` runs, so that
    /// work pulling pixels through it (a saver's own sink, which sends no progress signals to
    /// this image) stops with an error. Every region libvips prepares checks the flag.
    func killed<T>(at deadline: ContinuousClock.Instant?, _ body: () throws -> T) rethrows -> T {
        guard let deadline else { return try body() }
        let target = KillTarget(self)
        let item = DispatchWorkItem { target.kill() }
        let nanos = max(0, deadline.nanosecondsFromNow)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanos)), execute: item)
        defer {
            item.cancel()
            // A cancelled work item stays queued (with what it holds) until its deadline.
            target.release()
        }
        return try body()
    }

    /// 8-bit sRGB without reading any pixel (an alpha band, if any, is kept as it is): for lazy
    /// pipelines, where ``normalizedToSRGB8()``'s check of the alpha would decode everything.
    func lazilyNormalizedToSRGB8() throws -> Vips.Image {
        var image = self
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.colourspace(VIPS_INTERPRETATION_sRGB)
        }
        return image.bandFormat == VIPS_FORMAT_UCHAR ? image : try image.cast(VIPS_FORMAT_UCHAR)
    }

    /// Resized by `factor` (below 1), to whole pixels.
    func scaled(by factor: Double) throws -> Vips.Image {
        guard factor < 1 else { return self }
        let newWidth = max(1, Int((Double(width) * factor).rounded()))
        let newHeight = max(1, Int((Double(height) * factor).rounded()))
        return try resize(horizontal: Double(newWidth) / Double(width), vertical: Double(newHeight) / Double(height))
    }

    /// libimagequant's effort for GIFs (1…10, libvips' default 7). Quantising every frame of both
    /// variants, and again on each rung of the budget ladder, was half of an animation's time;
    /// at 3 it is much faster for a barely visible loss.
    static let gifEffort = 3

    /// An animated GIF: PushMedia's own writer (`pm_gif_write`: only the pixels that change are
    /// quantised, mapped and written), or libvips' cgif saver when the settings dither (it maps
    /// every pixel of every frame); both read the image a frame at a time. Then re-packed
    /// losslessly (``GIFRepack``) unless the settings ask for the writer's bytes as they are.
    func gifData(_ settings: GIFSettings) throws -> Data {
        try gifAttempt(settings.unbounded).wholeGIF
    }

    /// ``gifData(_:)``, given up part way when PushMedia's writer passes
    /// ``GIFSettings/giveUpAbove`` (libvips' saver, when dithering, always finishes).
    func gifAttempt(_ settings: GIFSettings) throws -> GIFAttempt {
        var c = settings.native
        if settings.dither > 0 {
            return .gif(settings.finished(try Vips.saveBuffer("gifsave") { buffer, length in pm_gifsave_buffer(pointer, buffer, length, &c) }))
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        switch pm_gif_write(pointer, &c, &bytes, &length) {
        case 0 where bytes != nil:
            return .gif(settings.finished(Data(bytesNoCopy: bytes!, count: length, deallocator: .free)))
        case 2:
            return .gaveUp(bytesWritten: length)
        default:
            throw Vips.Error(operation: "gif_write", message: Vips.takeError())
        }
    }

    /// An animated GIF with 2^bits colours and the default ``GIFSettings``.
    func gifData(paletteBits: Int) throws -> Data {
        try gifData(GIFSettings(paletteBits: paletteBits))
    }
}

/// What writing a GIF under a byte bound (``GIFSettings/giveUpAbove``) gives.
enum GIFAttempt: Equatable {
    /// The GIF, finished (and re-packed unless the settings say otherwise).
    case gif(Data)
    /// Given up part way, past the bound: the bytes written by then, more than the bound and no
    /// more than the whole GIF would have had before re-packing. Not an extrapolation: one
    /// costly early frame would make that many times too high, and a budget ladder predicting
    /// from it would skip rungs that fit.
    case gaveUp(bytesWritten: Int)

    /// The GIF, or nil when given up.
    var data: Data? {
        if case .gif(let data) = self { data } else { nil }
    }

    /// The GIF's length, or the bytes written by then when given up (a lower bound of it).
    var bytes: Int {
        switch self {
        case .gif(let data): data.count
        case .gaveUp(let written): written
        }
    }

    /// The GIF of a writer given no bound (``GIFSettings/unbounded``), which always finishes.
    var wholeGIF: Data {
        guard case .gif(let data) = self else { preconditionFailure("a writer with no bound gave up") }
        return data
    }
}

/// The GIF saver's settings (PushMedia's writer, or libvips 8.14's cgif saver when dithering).
struct GIFSettings: Equatable, Sendable {
    /// 2^bits colours.
    var paletteBits: Int
    /// libimagequant's effort (1…10).
    var effort = Vips.Image.gifEffort
    /// Dithering, 0…1. Dithered noise changes every pixel of every frame and defeats the
    /// inter-frame optimisation, so PushMedia does not dither by default.
    var dither = 0.0
    /// Pixels that differ from the previous frame by at most this (0…32) are written
    /// transparent: unchanged areas cost almost nothing.
    var interframeMaxError = EncodeSettings.defaultInterframeMaxError
    /// Keep the previous frame's palette while it fits within ``interpaletteMaxError``.
    var reusePalette = true
    var interpaletteMaxError = 3.0
    /// Re-pack the writer's output losslessly (``GIFRepack``).
    var repack = true
    /// Re-pack only a GIF of these sizes (``BudgetLadder/repackBytes``: over the ladder's limit,
    /// by little enough that the pass may bring it under; empty: none); nil: every one.
    var repackOnly: Range<Int>?
    /// PushMedia's writer stops once the GIF passes this many bytes with frames still to write
    /// (``GIFAttempt/gaveUp(bytesWritten:)``); nil: it always finishes.
    var giveUpAbove: Int?

    /// These settings with no bound: the writer always finishes.
    var unbounded: GIFSettings {
        var settings = self
        settings.giveUpAbove = nil
        return settings
    }

    /// The settings as PushMedia's writer and libvips' saver take them.
    var native: pm_gif_settings {
        pm_gif_settings(
            bitdepth: Int32(paletteBits), effort: Int32(effort), dither: dither, interframe_maxerror: interframeMaxError,
            reuse: reusePalette ? 1 : 0, interpalette_maxerror: interpaletteMaxError, give_up_bytes: giveUpAbove.map { max(1, $0) } ?? 0)
    }

    /// The writer's GIF, re-packed (``GIFRepack``) unless ``repack`` is off or its size is
    /// outside ``repackOnly``.
    func finished(_ gif: Data) -> Data {
        guard repack, repackOnly?.contains(gif.count) ?? true else { return gif }
        return GIFRepack.smallest(gif)
    }

    /// What PushMedia used before issue 14: full dithering, every pixel of every frame written,
    /// a palette per frame (kept to measure against).
    static func legacy(paletteBits: Int) -> GIFSettings {
        GIFSettings(paletteBits: paletteBits, dither: 1, interframeMaxError: 0, reusePalette: false, repack: false)
    }
}

/// The image ``Vips/Image/killed(at:_:)`` stops, held until the work is over (``release()``):
/// the cancelled timer keeps this object until the item's deadline, but not the image and the
/// decoder state behind it.
private final class KillTarget: @unchecked Sendable {
    private let lock = NSLock()
    private var image: Vips.Image?
    init(_ image: Vips.Image) { self.image = image }
    func kill() { lock.withLock { image.map { vips_image_set_kill($0.pointer, 1) } } }
    func release() { lock.withLock { image = nil } }
}

extension Vips.Image {
    /// Seeded 8-bit sRGB noise: the hardest content to compress (tests and benchmarks).
    static func noise(width: Int, height: Int, sigma: Double = 40, seed: Int = 1) throws -> Vips.Image {
        try Vips.start()
        return try Vips.call("noise") { pm_noise_rgb($0, Int32(width), Int32(height), sigma, Int32(seed)) }
    }
}

/// The Swift closure behind a `pm_join_frames` image, kept alive by it.
private final class FrameMaker: @unchecked Sendable {
    let make: (Int) throws -> Vips.Image
    init(_ make: @escaping (Int) throws -> Vips.Image) { self.make = make }
}
