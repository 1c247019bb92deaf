import CGIFCodec
import CVips
import Foundation
import PushMediaModel

/// A GIF that PushMedia's own decoder takes, opened, mapped and scanned once per item
/// (`pm_gif_open`, gif_read_scan.c). Whatever reads the item's frames draws from this one scan
/// on a canvas of its own: the lazy image of every frame (``frames()``, `pm_gif_load`), the GIF
/// writer reading a cut straight from the decoder and the proxies (``GIFFileCut``). The scan
/// is immutable, so readers on several threads share it; the C side holds a reference for each
/// reader (an image keeps the file open until it closes).
final class GIFFile: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The file's path (for messages).
    let path: String
    /// The logical screen: every frame's size.
    let frameSize: PixelSize
    let frameCount: Int
    /// 3, or 4 when a frame has a transparent index (libvips' gifload's bands).
    let bands: Int
    /// Each frame's delay in milliseconds, as libvips' `delay` (100 for a frame without one).
    let delays: [Int]
    /// As libvips' `loop`: 0 forever, else the times it plays.
    let loop: Int
    /// What the scan found, for the limits.
    let facts: GIFFacts

    private init(handle: OpaquePointer, path: String, facts: GIFFacts) {
        self.handle = handle
        self.path = path
        self.facts = facts
        var info = pm_gif_info()
        pm_gif_file_info(handle, &info)
        frameSize = PixelSize(width: Int(info.width), height: Int(info.height))
        frameCount = Int(info.frames)
        bands = Int(info.bands)
        loop = Int(info.loop)
        var delays = [Int32](repeating: 0, count: frameCount)
        delays.withUnsafeMutableBufferPointer { pm_gif_file_delays(handle, $0.baseAddress) }
        self.delays = delays.map(Int.init)
    }

    deinit { pm_gif_file_unref(handle) }

    /// What opening a GIF gives: the file, or the facts of one the decoder does not take.
    enum Scan {
        /// The decoder takes it (its facts are ``GIFFile/facts``).
        case taken(GIFFile)
        /// Left to libvips' loader (a frame outside the picture, a malformed or truncated block,
        /// a size libnsgif changes): what the walk over its blocks found before libvips opens it.
        case declined(GIFFacts)
        /// More than the frames asked for: nothing kept, the frames counted.
        case tooManyFrames(GIFFacts)
    }

    /// Opens and scans the GIF at `path`, keeping at most `maxFrames` frames.
    static func scan(path: String, maxFrames: Int) throws -> Scan {
        var handle: OpaquePointer?
        var raw = pm_gif_facts()
        let status = pm_gif_open(path, Int32(clamping: maxFrames), &handle, &raw)
        let facts = GIFFacts(
            screen: PixelSize(width: Int(raw.screen_width), height: Int(raw.screen_height)), frames: raw.frames,
            codedPixels: raw.coded_pixels)
        switch status {
        case 0:
            guard let handle else { return .declined(facts) }
            return .taken(GIFFile(handle: handle, path: path, facts: facts))
        case 1: return .declined(facts)
        case 2: return .tooManyFrames(facts)
        default: throw Vips.Error(operation: "gif_read", message: Vips.takeError())
        }
    }

    /// Opens and scans the GIF at `path`; nil for a file the decoder leaves to libvips' loader.
    static func open(path: String) throws -> GIFFile? {
        if case .taken(let file) = try scan(path: path, maxFrames: Int(Int32.max)) { return file }
        return nil
    }

    /// Every frame as the decoder draws it (`pm_gif_load`: libvips' gifload's pixels, each frame
    /// costing only its own rectangle), stacked top to bottom, lazily.
    func frames() throws -> Vips.Image {
        var image: UnsafeMutablePointer<VipsImage>?
        guard pm_gif_load(handle, &image) == 0, let image else {
            throw Vips.Error(operation: "gif_read", message: Vips.takeError())
        }
        return Vips.Image(owning: image)
    }

    /// `body` with the handle, for the readers of a cut (GIFFileCut+Decoder.swift).
    func withHandle<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try withExtendedLifetime(self) { try body(handle) }
    }
}

/// What a scan of a GIF finds before any pixel is decoded (`pm_gif_facts`), whether or not
/// PushMedia's decoder takes the file: what its limits are checked against.
struct GIFFacts: Sendable, Equatable {
    /// The logical screen as the file declares it.
    var screen: PixelSize
    /// Frames found (as far as the blocks could be followed).
    var frames: Int
    /// The pixels of those frames' own rectangles: what decoding each frame once costs.
    var codedPixels: Double
}
