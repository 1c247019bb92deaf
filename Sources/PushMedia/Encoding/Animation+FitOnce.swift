import Foundation
import PushMediaModel

extension Animation {
    /// Source pixels (frames × a source frame) from which frames that libvips must resize (a
    /// GIF's fitted with colour management; a cut of frames libvips decodes) are resized once
    /// (``fittedOnce(in:)``) rather than by every pass over them (representative frame, stills,
    /// each attempt of the budget ladder): below it every pass resizes the frames it reads.
    /// Frames PushMedia's decoder reduces (``fittedCut``) are always fitted once: it costs the
    /// pixels each frame changes, about what one pass costs.
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
        let written =
            try fittedCut?.writtenGIF(frames: indices, delays: delays, loop: loop, Self.fitOnceSettings.unbounded, until: deadline)
            .wholeGIF ?? gifData(Self.fitOnceSettings).data
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(TemporaryFileName.media(extension: "gif"))
        try written.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let file = try GIFFile.open(path: url.path) else { return self }
        return Animation(frames: .gif(file, fit: nil), frameSize: file.frameSize, delays: delays, loop: loop, deadline: deadline)
    }

    /// The fit as a cut PushMedia's decoder reduces (``GIFFileCut/reduces``) when nothing else is
    /// done to the file's frames: the whole screen at the decode size, no colour management,
    /// no cut. Reduced there, a frame costs the pixels its changes reach, not the whole canvas
    /// through libvips' premultiplied float reduction.
    var fittedCut: GIFFileCut? {
        guard case .gif(let file, let fit?) = frames, !fit.colourManaged, cuts.isEmpty else { return nil }
        let screen = PixelRect(x: 0, y: 0, width: file.frameSize.width, height: file.frameSize.height)
        return GIFFileCut(file: file, rect: screen, size: sourceSize).reducible
    }
}
