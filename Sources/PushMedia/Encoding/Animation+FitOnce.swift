import Foundation
import PushMediaModel

extension Animation {
    /// Source pixels (frames × a source frame) from which frames that must be resized (a GIF's
    /// fitted to the decode size; the expanded variant's cut to its size) are resized once
    /// (``fittedOnce(in:)``) rather than by every pass over them (representative frame, stills,
    /// each attempt of the budget ladder): below it every pass resizes the frames it reads, as
    /// it always did, and the outputs are unchanged.
    static let fitOnceSourcePixels = 150_000_000

    /// How the one rendering is written: every colour a frame's palette can hold and every pixel
    /// that changes, so that what the attempts start from differs from the source only by a
    /// palette of 256 colours per frame.
    static let fitOnceSettings = GIFSettings(paletteBits: 8, interframeMaxError: 0, repack: false)

    /// Whether source frames of `source` pixels, up to the last one shown, are over
    /// ``fitOnceSourcePixels``: fitting them on every pass would cost more than the passes.
    func fitsOnce(source: PixelSize) -> Bool {
        let (pixels, overflow) = (source.width * source.height).multipliedReportingOverflow(by: (indices.last ?? 0) + 1)
        return overflow || pixels > Self.fitOnceSourcePixels
    }

    /// This animation's frames, fitted (and cut) once into a GIF in `folder` (removed once
    /// opened: the file stays mapped), and read from there by PushMedia's decoder: every later
    /// pass draws frames of the decode size straight from the decoder, not the source's through
    /// libvips. Itself when the decoder does not take the rendering (a size libnsgif replaces).
    func fittedOnce(in folder: URL) throws -> Animation {
        let written = try gifData(Self.fitOnceSettings)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(TemporaryFileName.media(extension: "gif"))
        try written.data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let file = try GIFFile.open(path: url.path) else { return self }
        return Animation(frames: .gif(file, fit: nil), frameSize: file.frameSize, delays: delays, loop: loop, deadline: deadline)
    }
}
