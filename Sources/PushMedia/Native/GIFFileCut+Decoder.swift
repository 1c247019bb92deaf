import CGIFCodec
import CVips
import Foundation

/// A GIF cut read straight from PushMedia's decoder, with no libvips in between: written again
/// by the GIF writer (`pm_gif_transcode`, gif_transcode.c; reduced on the way when the cut
/// resizes), shrunk into proxies or copied as one frame (`pm_gif_proxies`, gif_proxies.c), or
/// reduced frames (`pm_gif_reduced`). Both look only where the frames drawn since the last
/// one may differ, and make what the libvips path makes from the decoder's image cut the same
/// way (``Vips/Image/writtenGIF(_:until:)``, `vips_shrink`). The cut is one ``Animation/directCut`` chose
/// from the file's size and frames; each stops with an error at `deadline`.
extension GIFFileCut {
    /// The frames at `frames` (increasing source indices), each shown `delays` milliseconds, as
    /// PushMedia's writer writes them with `settings` (undithered); given up part way past
    /// ``GIFSettings/giveUpAbove``. Not re-packed.
    func writtenGIF(
        frames: [Int], delays: [Int], loop: Int, _ settings: GIFSettings, until deadline: Deadline?
    ) throws -> GIFAttempt {
        precondition(!settings.dithers, "the writer does not dither")
        var native = settings.writer
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = withNative(frames: frames, delays: delays, loop: loop, until: deadline) { file, cut in
            pm_gif_transcode(file, cut, &native, &bytes, &length)
        }
        switch status {
        case 0:
            guard let bytes else { throw Vips.Error(operation: "gif_write", message: "no GIF written") }
            return .gif(Data(bytesNoCopy: bytes, count: length, deallocator: .free))
        case 2: return .gaveUp(bytesWritten: length)
        default: throw Vips.Error(operation: "gif_write", message: Vips.takeError())
        }
    }

    /// The frames at `frames` (increasing source indices), each box-averaged by `factor` (1: as
    /// they are) as libvips' shrink makes it, stacked top to bottom in memory. `factor` leaves a
    /// pixel at least (``proxyFactorFits(_:)``).
    func proxies(frames: [Int], factor: Int, until deadline: Deadline?) throws -> Vips.Image {
        var image: UnsafeMutablePointer<VipsImage>?
        let status = withNative(frames: frames, delays: nil, loop: 0, until: deadline) { file, cut in
            pm_gif_proxies(file, cut, Int32(clamping: factor), &image)
        }
        guard status == 0, let image else { throw Vips.Error(operation: "gif_proxies", message: Vips.takeError()) }
        return Vips.Image(owning: image)
    }

    /// The frame at `frame` (a source index) as it is, in memory: the decoder draws up to it and
    /// the cut is copied from its canvas (`pm_gif_proxies` at factor 1), or reduced
    /// (`pm_gif_reduced`).
    func frame(_ frame: Int, until deadline: Deadline?) throws -> Vips.Image {
        guard reduces else { return try proxies(frames: [frame], factor: 1, until: deadline) }
        return try reduced(frames: [frame], until: deadline)
    }

    /// The frames at `frames` (increasing source indices), the cut reduced to ``size`` (alpha
    /// weighted), stacked top to bottom in memory: for a few frames.
    func reduced(frames: [Int], until deadline: Deadline?) throws -> Vips.Image {
        var image: UnsafeMutablePointer<VipsImage>?
        let status = withNative(frames: frames, delays: nil, loop: 0, until: deadline) { file, cut in
            pm_gif_reduced(file, cut, &image)
        }
        guard status == 0, let image else { throw Vips.Error(operation: "gif_reduced", message: Vips.takeError()) }
        return Vips.Image(owning: image)
    }

    /// `body` with the file and this cut as C takes it (`pm_gif_cut`).
    private func withNative(
        frames: [Int], delays: [Int]?, loop: Int, until deadline: Deadline?,
        _ body: (OpaquePointer, UnsafePointer<pm_gif_cut>) -> Int32
    ) -> Int32 {
        let frames32 = frames.map { Int32(clamping: $0) }
        let delays32 = delays?.map { Int32(clamping: $0) }
        let count = min(frames.count, delays?.count ?? frames.count)
        return file.withHandle { file in
            frames32.withUnsafeBufferPointer { frames in
                (delays32 ?? []).withUnsafeBufferPointer { delays in
                    var cut = pm_gif_cut(
                        left: Int32(rect.x), top: Int32(rect.y), width: Int32(rect.width), height: Int32(rect.height),
                        frames: frames.baseAddress, delays: delays32 == nil ? nil : delays.baseAddress, count: Int32(count),
                        loop: Int32(clamping: loop), deadline: deadline.native, out_width: Int32(size.width),
                        out_height: Int32(size.height))
                    return body(file, &cut)
                }
            }
        }
    }
}
