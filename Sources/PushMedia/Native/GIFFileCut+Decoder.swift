import CPushMediaShims
import CVips
import Foundation

/// A GIF cut and written again by PushMedia's decoder and writer with nothing in between
/// (`pm_gif_transcode`, gif_transcode.c): the writer reads each frame from the decoder's canvas,
/// only where the frames drawn since the last one written may differ. The bytes are those of
/// ``Vips/Image/gifData(_:)`` for the decoder's image cut the same way.
enum GIFTranscode {
    /// The frames at `frames` (increasing source indices) of `cut`, each shown `delays`
    /// milliseconds, as a GIF with `settings` (undithered), re-packed unless the settings say
    /// otherwise. nil when the decoder does not take the file or the cut: go through libvips.
    /// Stops with an error at `deadline`.
    static func data(
        _ cut: GIFFileCut, frames: [Int], delays: [Int], loop: Int, _ settings: GIFSettings,
        until deadline: ContinuousClock.Instant?
    ) throws -> Data? {
        precondition(settings.dither == 0, "the writer does not dither")
        let frames32 = frames.map { Int32(clamping: $0) }
        let delays32 = delays.map { Int32(clamping: $0) }
        var native = settings.native
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = frames32.withUnsafeBufferPointer { frames in
            delays32.withUnsafeBufferPointer { delays in
                var c = pm_gif_cut(
                    left: Int32(cut.rect.x), top: Int32(cut.rect.y), width: Int32(cut.rect.width), height: Int32(cut.rect.height),
                    frames: frames.baseAddress, delays: delays.baseAddress, count: Int32(min(frames.count, delays.count)),
                    loop: Int32(clamping: loop),
                    deadline: monotonic(deadline))
                return pm_gif_transcode(cut.path, &c, &native, &bytes, &length)
            }
        }
        switch status {
        case 0:
            guard let bytes else { return nil }
            return settings.finished(Data(bytesNoCopy: bytes, count: length, deallocator: .free))
        case 1: return nil
        default: throw Vips.Error(operation: "gif_write", message: Vips.takeError())
        }
    }

    /// The frames at `frames` (increasing source indices) of `cut`, each box-averaged by
    /// `factor` (1: as they are) as libvips' shrink makes it, stacked top to bottom in memory
    /// (`pm_gif_proxies`): only the blocks the frames drawn since the last one may change are
    /// averaged again. nil when the decoder does not take the file or the cut: go through
    /// libvips. Stops with an error at `deadline`.
    static func proxies(_ cut: GIFFileCut, frames: [Int], factor: Int, until deadline: ContinuousClock.Instant?) throws -> Vips.Image? {
        let frames32 = frames.map { Int32(clamping: $0) }
        var image: UnsafeMutablePointer<VipsImage>?
        let status = frames32.withUnsafeBufferPointer { frames in
            var c = pm_gif_cut(
                left: Int32(cut.rect.x), top: Int32(cut.rect.y), width: Int32(cut.rect.width), height: Int32(cut.rect.height),
                frames: frames.baseAddress, delays: nil, count: Int32(frames.count), loop: 0, deadline: monotonic(deadline))
            return pm_gif_proxies(cut.path, &c, Int32(clamping: factor), &image)
        }
        switch status {
        case 0: return image.map { Vips.Image(owning: $0) }
        case 1: return nil
        default: throw Vips.Error(operation: "gif_proxies", message: Vips.takeError())
        }
    }

    /// `deadline` as g_get_monotonic_time() microseconds (0: none).
    private static func monotonic(_ deadline: ContinuousClock.Instant?) -> gint64 {
        deadline.map { g_get_monotonic_time() + gint64(max(1, $0.nanosecondsFromNow / 1000)) } ?? 0
    }
}
