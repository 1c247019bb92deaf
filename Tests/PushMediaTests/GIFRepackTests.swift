import Foundation
import Testing

@testable import PushMedia

/// Issue 14: cgif's GIFs re-packed losslessly with giflib (frames cut to what changes, unchanged
/// pixels transparent, the palette ordered for narrow LZW codes).
@Suite("GIF re-packing")
struct GIFRepackTests {
    /// cgif's GIF (PushMedia's settings, no re-packing) of a gif.py input at its own size.
    static func cgifGIF(_ name: String, width: Int, height: Int, frames: Int) throws -> Data {
        let folder = try Fixtures.temporaryFolder()
        let source = folder.appendingPathComponent("\(name).gif")
        let make = try CommandRunner.run(
            "/usr/bin/python3", [Fixtures.root.deletingLastPathComponent().appendingPathComponent("Benchmarks/gif.py").path,
                                 "--make", name, source.path, "\(width)", "\(height)", "\(frames)"])
        try #require(make.status == 0, "\(make.error)")
        let input = try GIFReader.read(Data(contentsOf: source))
        let animation = Animation(frames: try (0..<input.frames).map { try input.frame($0) }, delays: input.delays, loop: 0)
        var settings = GIFSettings(paletteBits: 8)
        settings.repack = false
        return try animation.gifData(settings).data
    }

    @Test(
        "a screen recording and a text banner: smaller, and every frame shows the same pixels with the same timing",
        arguments: ["screen-recording", "text-banner"])
    func lossless(name: String) throws {
        let plain = try Self.cgifGIF(name, width: 480, height: 240, frames: 40)
        let repacked = GIFRepack.smallest(plain)
        #expect(repacked.count < plain.count, "re-packed \(repacked.count) bytes, cgif \(plain.count)")
        let before = try GIFReader.read(plain)
        let after = try GIFReader.read(repacked)
        #expect(after.frames == before.frames && after.frames >= 10)
        #expect(after.delays == before.delays)
        #expect(after.loop == before.loop)
        #expect(after.width == 480 && after.frameHeight == 240)
        // Decoded (libvips' own GIF loader, every frame composed), byte for byte the same.
        let beforePixels = try before.image.memoryBytes()
        let afterPixels = try after.image.memoryBytes()
        #expect(beforePixels.count == 480 * 240 * before.frames * before.image.bands)
        // (A Bool, not the 16 MB buffers: a failed expectation would print them.)
        let differing = zip(beforePixels, afterPixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
        #expect(afterPixels.count == beforePixels.count && differing == 0, "\(differing) bytes differ")
    }

    @Test("PushMedia's GIF saver re-packs by default: its bytes are the re-packed cgif output")
    func savedGIFsAreRepacked() throws {
        let source = try Fixtures.temporaryFolder().appendingPathComponent("banner.gif")
        try Self.cgifGIF("screen-recording", width: 480, height: 240, frames: 20).write(to: source)
        let input = try GIFReader.read(Data(contentsOf: source))
        let animation = Animation(frames: try (0..<input.frames).map { try input.frame($0) }, delays: input.delays, loop: 0)
        var plain = GIFSettings(paletteBits: 6)
        plain.repack = false
        let cgif = try animation.gifData(plain).data
        let saved = try animation.gifData(GIFSettings(paletteBits: 6)).data
        #expect(saved.count < cgif.count)
        let same = saved == GIFRepack.smallest(cgif)
        #expect(same)
    }

    @Test("what it does not re-pack comes back byte for byte: not a GIF, a GIF cut short, a frame disposed to the background")
    func leftAsItIs() throws {
        let notGIF = Data("GIF89a, or so it says".utf8)
        #expect(GIFRepack.smallest(notGIF) == notGIF)
        #expect(GIFRepack.smallest(Data()) == Data())
        let gif = try Self.cgifGIF("screen-recording", width: 480, height: 240, frames: 20)
        let cut = gif.prefix(gif.count * 2 / 3)
        let cutKept = GIFRepack.smallest(Data(cut)) == Data(cut)
        #expect(cutKept)
        // The second frame's graphics control (21 F9 04 packed …) set to "restore to background".
        let bytes = [UInt8](gif)
        let controls = (0..<(bytes.count - 3)).filter { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 && bytes[$0 + 2] == 4 }
        try #require(controls.count >= 2)
        var disposed = bytes
        disposed[controls[1] + 3] = (disposed[controls[1] + 3] & ~0x1C) | (2 << 2)
        let disposedKept = GIFRepack.smallest(Data(disposed)) == Data(disposed)
        #expect(disposedKept)
        // The same file without that change is re-packed: the disposal is what kept it.
        #expect(GIFRepack.smallest(gif).count < gif.count)
    }
}
