import Foundation
import PushMediaModel

extension Animation {
    /// Source pixels (frames × a source frame) from which an animation whose frames are fitted
    /// or resized is rendered once, at its output size, before the budget ladder's attempts
    /// (``rendered(in:)``): below it every attempt reads the source, as it always did.
    static let referenceSourcePixels = 150_000_000

    /// How the one rendering is written: every colour a frame's palette can hold and every pixel
    /// that changes, so that what the attempts start from differs from the source only by a
    /// palette of 256 colours per frame.
    static let referenceSettings = GIFSettings(paletteBits: 8, interframeMaxError: 0, repack: false)

    /// Whether the ladder's attempts read ``rendered(in:)`` rather than the source: frames that
    /// must be fitted or resized (no ``directCut``), of a source large enough that doing it on
    /// every attempt would cost more than the attempts themselves.
    var rendersOnce: Bool {
        guard directCut == nil else { return false }
        let (pixels, overflow) = (sourceSize.width * sourceSize.height).multipliedReportingOverflow(by: (indices.last ?? 0) + 1)
        return overflow || pixels > Self.referenceSourcePixels
    }

    /// This animation, fitted, cut and resized once into a GIF in `folder` (removed once opened:
    /// the file stays mapped), and read from there by PushMedia's decoder: every later attempt
    /// draws frames of the output size, not the source's. Itself when the decoder does not take
    /// the rendering (a size libnsgif replaces).
    func rendered(in folder: URL) throws -> Animation {
        let written = try gifData(Self.referenceSettings)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(TemporaryFileName.media(extension: "gif"))
        try written.data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let file = try GIFFile.open(path: url.path) else { return self }
        return Animation(frames: .gif(file, fit: nil), frameSize: file.frameSize, delays: delays, loop: loop, deadline: deadline)
    }
}
