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

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
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

    /// Opens and scans the GIF at `path`; nil for a file the decoder leaves to libvips' loader
    /// (a frame outside the picture, a malformed or truncated block, a size libnsgif changes).
    static func open(path: String) throws -> GIFFile? {
        var handle: OpaquePointer?
        switch pm_gif_open(path, &handle) {
        case 0:
            guard let handle else { return nil }
            return GIFFile(handle: handle, path: path)
        case 1: return nil
        default: throw Vips.Error(operation: "gif_read", message: Vips.takeError())
        }
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
