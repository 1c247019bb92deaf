import CPushMediaTestSupport
import Foundation
import PushMediaTesting
import Testing

@testable import PushMedia

/// The GIF writer's output re-packed losslessly with giflib (frames cut to what changes, unchanged
/// pixels transparent, the palette ordered for narrow LZW codes).
@Suite("GIF re-packing")
struct GIFRepackTests {
    /// The writer's GIF (PushMedia's settings, no re-packing) of a gif.py input at its own size.
    static func writerGIF(_ name: String, width: Int, height: Int, frames: Int) throws -> Data {
        let folder = try Fixtures.temporaryFolder()
        let source = folder.appendingPathComponent("\(name).gif")
        try Fixtures.benchmarkGIF(name, to: source, width: width, height: height, frames: frames)
        let input = try GIFReader.read(Data(contentsOf: source))
        let animation = Animation(frames: try (0..<input.frames).map { try input.frame($0) }, delays: input.delays, loop: 0)
        var settings = GIFSettings(paletteBits: 8)
        settings.repack = false
        return try animation.gifData(settings).data
    }

    @Test(
        "a screen recording and a text banner: smaller, by less than the budget ladder's reach (an attempt further over, or given up at twice the limit, could not fit re-packed), and every frame shows the same pixels with the same timing",
        arguments: ["screen-recording", "text-banner"])
    func lossless(name: String) throws {
        let plain = try Self.writerGIF(name, width: 480, height: 240, frames: 40)
        let repacked = GIFRepack.smallest(plain)
        #expect(repacked.count < plain.count, "re-packed \(repacked.count) bytes, written \(plain.count)")
        #expect(Double(repacked.count) * BudgetLadder.repackReach > Double(plain.count), "re-packed \(repacked.count) bytes of \(plain.count)")
        #expect(BudgetLadder.repackReach < Double(BudgetLadder.giveUpFactor))
        let before = try GIFReader.read(plain)
        let after = try GIFReader.read(repacked)
        #expect(after.frames == before.frames && after.frames >= 10)
        #expect(after.delays == before.delays)
        #expect(after.loop == before.loop)
        #expect(after.width == 480 && after.frameHeight == 240)
        // Decoded (libvips' own GIF loader, every frame composed), byte for byte the same.
        let compared = try Self.compareDecoded(before, after)
        #expect(compared.bytes == 480 * 240 * before.frames * before.image.bands)
        #expect(compared.differing == 0, "\(compared.differing.map(String.init) ?? "sizes differ"): bytes differ")
    }

    @Test("PushMedia's GIF saver re-packs by default: its bytes are the writer's output re-packed")
    func savedGIFsAreRepacked() throws {
        let source = try Fixtures.temporaryFolder().appendingPathComponent("banner.gif")
        try Self.writerGIF("screen-recording", width: 480, height: 240, frames: 20).write(to: source)
        let input = try GIFReader.read(Data(contentsOf: source))
        let animation = Animation(frames: try (0..<input.frames).map { try input.frame($0) }, delays: input.delays, loop: 0)
        var plain = GIFSettings(paletteBits: 6)
        plain.repack = false
        let written = try animation.gifData(plain).data
        let saved = try animation.gifData(GIFSettings(paletteBits: 6)).data
        #expect(saved.count < written.count)
        let same = saved == GIFRepack.smallest(written)
        #expect(same)
    }

    @Test(
        "what it does not re-pack comes back byte for byte: not a GIF, a GIF cut short, a first frame restored to the previous canvas, a frame disposed to the background without a transparent index"
    )
    func leftAsItIs() throws {
        let notGIF = Data("GIF89a, or so it says".utf8)
        #expect(GIFRepack.smallest(notGIF) == notGIF)
        #expect(GIFRepack.smallest(Data()) == Data())
        let gif = try Self.writerGIF("screen-recording", width: 480, height: 240, frames: 20)
        let cut = gif.prefix(gif.count * 2 / 3)
        let cutKept = GIFRepack.smallest(Data(cut)) == Data(cut)
        #expect(cutKept)
        // The first frame's graphics control (21 F9 04 packed …) set to "restore to previous"
        // (decoders differ on what restoring the first frame shows), the second's to "restore to
        // background" without its transparent flag (decoders differ: the background colour or
        // see-through). With the flag, such a frame is re-packed, and so is a later
        // frame restored to the previous canvas.
        let bytes = [UInt8](gif)
        let controls = try Self.blocks(bytes).filter { $0.isGraphicsControl }
        try #require(controls.count >= 2)
        let first = controls[0].range.lowerBound + 3
        let packed = controls[1].range.lowerBound + 3
        try #require(bytes[packed] & 1 == 1, "the writer's later frames have a transparent index")
        for (at, disposal, flag) in [(first, UInt8(3), bytes[first] & 1), (packed, 2, 0)] {
            var disposed = bytes
            disposed[at] = (disposed[at] & ~0x1D) | (disposal << 2) | flag
            let disposedKept = GIFRepack.smallest(Data(disposed)) == Data(disposed)
            #expect(disposedKept, "frame \(at == first ? 1 : 2): disposal \(disposal), transparent flag \(flag)")
        }
        for disposal in [UInt8(2), 3] {
            var kept = bytes
            kept[packed] = (kept[packed] & ~0x1C) | (disposal << 2)
            #expect(
                GIFRepack.smallest(Data(kept)).count < kept.count, "a second frame with disposal \(disposal) and a transparent index is re-packed")
        }
        // The same file without that change is re-packed: the disposal is what kept it.
        #expect(GIFRepack.smallest(gif).count < gif.count)
    }

    @Test(
        "a ball rolling over a see-through picture, each position restored to the previous canvas (disposal 3): re-packed smaller, still restored, every frame shows the same pixels with the same timing"
    )
    func restoredFrames() throws {
        // A shelf along the bottom left in place, then a striped ball on its top edge, each
        // position restored (3). Literal LZW codes, as a plain encoder writes them: the pass
        // codes them again. Where the ball was, the restored canvas shows the shelf or nothing;
        // a pass that kept the ball on its canvas would take the next ball's pixels of the same
        // stripe colour for pixels already shown, and leave them see-through.
        let source = try Fixtures.temporaryFolder().appendingPathComponent("restored.gif")
        let script = #"""
            import struct, sys
            W, H, S = 96, 48, 12
            pal = [(0, 0, 0)] + [((37 * i) % 256, (90 + 29 * i) % 256, (200 - 7 * i) % 256) for i in range(1, 32)]
            def lzw(ix, m=5):
                codes, since = [1 << m], 0
                for i in ix:
                    if since == (1 << m) - 2:
                        codes, since = codes + [1 << m], 0
                    codes, since = codes + [i], since + 1
                acc = have = 0
                out = bytearray()
                for c in codes + [(1 << m) + 1]:
                    acc, have = acc | c << have, have + m + 1
                    while have >= 8:
                        out.append(acc & 255)
                        acc, have = acc >> 8, have - 8
                out += bytes([acc & 255] if have else [])
                return bytes([m]) + b"".join(bytes([len(out[k:k + 255])]) + out[k:k + 255] for k in range(0, len(out), 255)) + b"\0"
            def frame(l, t, w, h, px, disposal):
                return (b"\x21\xf9\x04" + bytes([disposal << 2 | 1]) + struct.pack("<H", 8) + b"\0\0"
                        + b"\x2c" + struct.pack("<HHHHB", l, t, w, h, 0) + lzw(px))
            gif = b"GIF89a" + struct.pack("<HHBBB", W, H, 0xF4, 0, 0) + b"".join(bytes(c) for c in pal)
            gif += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\0\0\0"
            gif += frame(0, 0, W, H, [1 + (x // 6) % 4 if y >= 34 else 0 for y in range(H) for x in range(W)], 1)
            for k in range(16):
                ball = [0 if (i - 5.5) ** 2 + (j - 5.5) ** 2 > 36 else 8 + j // 2 for j in range(S) for i in range(S)]
                gif += frame(2 + 5 * k, 26 + k % 3, S, S, ball, 3)
            open(sys.argv[1], "wb").write(gif + b"\x3b")
            """#
        let make = try CommandRunner.run("/usr/bin/python3", ["-c", script, source.path])
        try #require(make.status == 0, "\(make.error)")
        let written = try Data(contentsOf: source)
        let repacked = GIFRepack.smallest(written)
        #expect(repacked.count < written.count, "re-packed \(repacked.count) bytes, written \(written.count)")
        func disposals(_ gif: Data) throws -> [UInt8] {
            let bytes = [UInt8](gif)
            return try Self.blocks(bytes).filter { $0.isGraphicsControl }.map { (bytes[$0.range.lowerBound + 3] >> 2) & 7 }
        }
        let shelfThenBalls: [UInt8] = [1] + Array(repeating: 3, count: 16)
        #expect(try disposals(written) == shelfThenBalls)
        #expect(try disposals(repacked) == disposals(written))
        let before = try GIFReader.read(written)
        let after = try GIFReader.read(repacked)
        #expect(after.frames == 17 && before.frames == 17)
        #expect(after.delays == before.delays)
        #expect(after.image.bands == 4 && before.image.bands == 4)
        let compared = try Self.compareDecoded(before, after)
        #expect(compared.bytes == 96 * 48 * 4 * 17)
        #expect(compared.differing == 0, "\(compared.differing.map(String.init) ?? "sizes differ"): bytes differ")
    }

    @Test("frames without a graphics control get none (no added transparency, no delay 0): same pixels, same timing")
    func framesWithoutControl() throws {
        // Pillow without durations writes no graphics control at all. A still noise background
        // with two small squares moving in opposite corners: each frame's rectangle is nearly
        // the whole screen and mostly unchanged, where transparency would be much smaller.
        let source = try Fixtures.temporaryFolder().appendingPathComponent("bare.gif")
        let script = """
            import random, sys
            from PIL import Image, ImageDraw
            random.seed(3)
            bg = Image.new("P", (120, 60))
            bg.putpalette(sum(([random.randrange(256) for _ in range(3)] for _ in range(256)), []))
            bg.putdata([random.randrange(16) for _ in range(120 * 60)])
            frames = []
            for i in range(6):
                im = bg.copy()
                d = ImageDraw.Draw(im)
                d.rectangle([2 + 3 * i, 2, 8 + 3 * i, 8], fill=200)
                d.rectangle([110 - 3 * i, 50, 116 - 3 * i, 56], fill=201)
                frames.append(im)
            frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], optimize=False, loop=0)
            """
        let make = try CommandRunner.run("/usr/bin/python3", ["-c", script, source.path])
        try #require(make.status == 0, "\(make.error)")
        let bare = try Data(contentsOf: source)
        try #require(try Self.blocks([UInt8](bare)).allSatisfy { !$0.isGraphicsControl })
        let repacked = GIFRepack.smallest(bare)
        #expect(repacked.count < bare.count, "re-packed \(repacked.count) bytes, Pillow \(bare.count)")
        #expect(try Self.blocks([UInt8](repacked)).allSatisfy { !$0.isGraphicsControl })
        let before = try GIFReader.read(bare)
        let after = try GIFReader.read(repacked)
        #expect(after.frames == 6 && before.frames == 6)
        #expect(after.delays == before.delays)
        #expect(after.image.bands == before.image.bands)
        let compared = try Self.compareDecoded(before, after)
        #expect(compared.differing == 0, "\(compared.differing.map(String.init) ?? "sizes differ"): bytes differ")
    }

    @Test("LZW: the bytes giflib's encoder writes, for every code size, through table clears, for runs and for noise; given up at a limit")
    func lzwMatchesGiflib() {
        var random = SeededRandom(seed: 11)
        for bits in 2...8 {
            let colours = 1 << bits
            // Noise fills the 4,096-code table many times; runs make long strings; one pixel, one row.
            let noise = (0..<300 * 200).map { _ in UInt8(Int.random(in: 0..<colours, using: &random)) }
            let runs = (0..<257 * 131).map { UInt8(($0 / 97 + $0 / 1013) % colours) }
            let cases: [(pixels: [UInt8], width: Int, height: Int)] = [
                (noise, 300, 200), (runs, 257, 131), ([UInt8(colours - 1)], 1, 1), (Array(noise.prefix(4099)), 4099, 1),
            ]
            for c in cases {
                let status = c.pixels.withUnsafeBufferPointer {
                    pm_gif_lzw_matches_giflib($0.baseAddress, Int32(c.width), Int32(c.height), Int32(bits), .max)
                }
                #expect(status == 0, "\(bits) bits, \(c.width)×\(c.height): \(status == 1 ? "bytes differ" : "failed")")
            }
            // A candidate that reaches the best's size is given up part way (noise takes far more than 1,000 bytes).
            let stopped = noise.withUnsafeBufferPointer { pm_gif_lzw_matches_giflib($0.baseAddress, 300, 200, Int32(bits), 1000) }
            #expect(stopped == 2, "\(bits) bits: \(stopped)")
        }
    }

    /// Every frame of both animations as libvips composes them: the first's size in bytes, and
    /// how many bytes differ (nil when the sizes do). Numbers, not the buffers: a failed
    /// expectation would print megabytes.
    static func compareDecoded(_ before: GIFReader, _ after: GIFReader) throws -> (bytes: Int, differing: Int?) {
        let beforePixels = try before.image.memoryBytes()
        let afterPixels = try after.image.memoryBytes()
        guard beforePixels.count == afterPixels.count else { return (beforePixels.count, nil) }
        return (beforePixels.count, zip(beforePixels, afterPixels).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) })
    }

    /// A GIF's blocks in order (header and screen with its table, extensions, images with their
    /// data, trailer), each as the byte range it takes.
    struct Block {
        var range: Range<Int>
        var isGraphicsControl = false
    }

    static func blocks(_ bytes: [UInt8]) throws -> [Block] {
        func subBlocks(from start: Int) throws -> Int {
            var at = start
            while true {
                try #require(at < bytes.count, "GIF cut short")
                if bytes[at] == 0 { return at + 1 }
                at += Int(bytes[at]) + 1
            }
        }
        func table(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0 }
        var result = [Block(range: 0..<(13 + table(bytes[10])))]
        var at = result[0].range.upperBound
        while at < bytes.count {
            switch bytes[at] {
            case 0x21:
                let end = try subBlocks(from: at + 2)
                result.append(Block(range: at..<end, isGraphicsControl: bytes[at + 1] == 0xF9))
                at = end
            case 0x2C:
                let end = try subBlocks(from: at + 10 + table(bytes[at + 9]) + 1)
                result.append(Block(range: at..<end))
                at = end
            case 0x3B:
                result.append(Block(range: at..<(at + 1)))
                return result
            default:
                throw GIFBlockError(offset: at)
            }
        }
        throw GIFBlockError(offset: at)
    }

    struct GIFBlockError: Error { var offset: Int }
}
