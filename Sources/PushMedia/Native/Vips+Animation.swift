import CGIFCodec
import CVips
import CVipsShims
import Foundation

extension Vips.Image {
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
            pm_join_frames(
                Int32(count),
                { index, context in
                    let maker = Unmanaged<FrameMaker>.fromOpaque(context!).takeUnretainedValue()
                    do {
                        let image = try maker.make(Int(index))
                        g_object_ref(image.pointer)
                        return image.pointer
                    } catch {
                        pm_vips_error("join_frames", "frame \(index): \(error)")
                        return nil
                    }
                }, maker,
                { context in
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
    func stopEvaluation(at deadline: Deadline) {
        pm_image_set_deadline(pointer, deadline.native)
    }

    /// This animation of 8-bit sRGB frames (``srgb8()``) written by PushMedia's writer
    /// (`pm_gif_write`, without dithering) as `settings` say, each frame computed under
    /// `deadline`; given up part way past ``GIFSettings/giveUpAbove``. Not re-packed.
    func writtenGIF(_ settings: GIFSettings, until deadline: Deadline?) throws -> GIFAttempt {
        var c = settings.writer
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        switch pm_gif_write(pointer, &c, deadline.native, &bytes, &length) {
        case 0 where bytes != nil:
            return .gif(Data(bytesNoCopy: bytes!, count: length, deallocator: .free))
        case 2:
            return .gaveUp(bytesWritten: length)
        default:
            throw Vips.Error(operation: "gif_write", message: Vips.takeError())
        }
    }

    /// This animation written by libvips' cgif saver, which dithers, as `settings` say (no bound,
    /// no deadline of its own: it reads the image, whose decode carries the item's). Not re-packed.
    func savedGIF(_ settings: GIFSettings) throws -> Data {
        try Vips.saveBuffer("gifsave") { buffer, length in
            pm_gifsave_buffer(
                pointer, buffer, length, Int32(settings.paletteBits), Int32(settings.effort), settings.dither,
                settings.interframeMaxError, settings.reusePalette ? 1 : 0, settings.interpaletteMaxError)
        }
    }
}

extension GIFSettings {
    /// The settings as PushMedia's writer takes them.
    var writer: pm_gif_settings {
        pm_gif_settings(
            bitdepth: Int32(paletteBits), effort: Int32(effort), interframe_maxerror: interframeMaxError,
            reuse: reusePalette ? 1 : 0, interpalette_maxerror: interpaletteMaxError,
            give_up_bytes: giveUpAbove.map { max(1, $0) } ?? 0, give_up_after_frames: Int32(clamping: giveUpAfterFrames))
    }
}

/// The Swift closure behind a `pm_join_frames` image, kept alive by it.
private final class FrameMaker: @unchecked Sendable {
    let make: (Int) throws -> Vips.Image
    init(_ make: @escaping (Int) throws -> Vips.Image) { self.make = make }
}
