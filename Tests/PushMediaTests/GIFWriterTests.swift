import CPushMediaTestSupport
import CVips
import CVipsShims
import Foundation
import PushMediaTesting
import Testing

@testable import PushMedia

/// PushMedia's own GIF writer (`pm_gif_write`, gif_write.c), which quantises, maps and
/// writes only the pixels that change. Every output is decoded by libvips' own GIF loader and
/// compared with the frames it was made from.
@Suite("GIF writer")
struct GIFWriterTests {
    /// Packed frames (RGB or RGBA) as an animation, written with `settings`, read back.
    static func written(
        _ frames: [[UInt8]], width: Int, height: Int, bands: Int, delays: [Int]? = nil, loop: Int = 0, settings: GIFSettings
    ) throws -> (data: Data, gif: GIFReader) {
        let images = try frames.map { try Vips.Image.fromPixels($0, width: width, height: height, bands: bands) }
        let animation = Animation(frames: images, delays: delays ?? frames.map { _ in 100 }, loop: loop)
        let data = try animation.gifData(settings).data
        return (data, try GIFReader.read(data))
    }

    /// Every decoded frame as packed RGBA.
    static func rgba(_ gif: GIFReader) throws -> [[UInt8]] {
        let bytes = [UInt8](try gif.image.memoryBytes())
        let bands = gif.image.bands
        let frame = gif.width * gif.frameHeight
        return (0..<gif.frames).map { f in
            var out = [UInt8](repeating: 255, count: frame * 4)
            for i in 0..<frame {
                for b in 0..<min(bands, 4) { out[i * 4 + b] = bytes[(f * frame + i) * bands + b] }
            }
            return out
        }
    }

    /// How many pixels of decoded RGBA differ in colour from packed RGB.
    static func differingPixels(_ decoded: [UInt8], _ rgb: [UInt8]) -> Int {
        var count = 0
        for i in 0..<rgb.count / 3 where decoded[i * 4] != rgb[i * 3] || decoded[i * 4 + 1] != rgb[i * 3 + 1] || decoded[i * 4 + 2] != rgb[i * 3 + 2]
        {
            count += 1
        }
        return count
    }

    /// The writer alone (no re-packing), and the whole saver.
    static func settings(interframeMaxError: Double, reusePalette: Bool = true) -> [GIFSettings] {
        var plain = GIFSettings(paletteBits: 8, interframeMaxError: interframeMaxError, reusePalette: reusePalette)
        plain.repack = false
        var repacked = plain
        repacked.repack = true
        return [plain, repacked]
    }

    /// Six 64×32 frames of at most 40 colours: a background, a rectangle moving across it and
    /// seeded speckles, in RGB.
    static func fewColourFrames() -> [[UInt8]] {
        var random = SeededRandom(seed: 7)
        let colours: [[UInt8]] = (0..<40).map { _ in (0..<3).map { _ in UInt8.random(in: 0...255, using: &random) } }
        return (0..<6).map { f in
            var pixels = [UInt8](repeating: 0, count: 64 * 32 * 3)
            for y in 0..<32 {
                for x in 0..<64 {
                    var colour = colours[0]
                    if x >= f * 8 && x < f * 8 + 12 && y >= 8 && y < 20 { colour = colours[1 + f] }
                    if (x * 7 + y * 13 + f * 3) % 29 == 0 { colour = colours[10 + (x + y) % 30] }
                    pixels.replaceSubrange((y * 64 + x) * 3..<(y * 64 + x) * 3 + 3, with: colour)
                }
            }
            return pixels
        }
    }

    @Test("frames of few colours, no inter-frame error, a palette per frame if need be: every frame decodes to exactly its pixels")
    func lossless() throws {
        let frames = Self.fewColourFrames()
        for settings in Self.settings(interframeMaxError: 0, reusePalette: false) {
            let (_, gif) = try Self.written(frames, width: 64, height: 32, bands: 3, settings: settings)
            #expect(gif.frames == 6 && gif.width == 64 && gif.frameHeight == 32)
            let decoded = try Self.rgba(gif)
            for (f, frame) in frames.enumerated() {
                let differing = Self.differingPixels(decoded[f], frame)
                #expect(differing == 0, "frame \(f), repack \(settings.repack): \(differing) pixels differ")
                #expect((0..<64 * 32).allSatisfy { decoded[f][$0 * 4 + 3] == 255 })
            }
        }
    }

    @Test("a background drifting 3 levels a frame under an inter-frame error of 8: every pixel shown within 8 of its source, fewer bytes than with 0")
    func interframeErrorBound() throws {
        // A drifting background (what re-dithered or compressed frames look like) under a few
        // fixed colours, so the palette is exact and only the inter-frame rule makes errors.
        let frames: [[UInt8]] = (0..<10).map { f in
            (0..<48 * 24).flatMap { i -> [UInt8] in i % 48 < 8 ? [20, 200, 40] : [UInt8(100 + 3 * f), 90, 80] }
        }
        for settings in Self.settings(interframeMaxError: 8, reusePalette: false) {
            let (data, gif) = try Self.written(frames, width: 48, height: 24, bands: 3, settings: settings)
            let decoded = try Self.rgba(gif)
            var worst = 0.0
            for (f, frame) in frames.enumerated() {
                for i in 0..<48 * 24 {
                    let d = (0..<3).map { Double(Int(decoded[f][i * 4 + $0]) - Int(frame[i * 3 + $0])) }
                    worst = max(worst, (d.map { $0 * $0 }.reduce(0, +)).squareRoot())
                }
            }
            #expect(worst <= 8, "repack \(settings.repack): a pixel shown \(worst) from its source")
            #expect(worst > 0, "the inter-frame rule kept nothing: the test measures nothing")
            var exact = settings
            exact.interframeMaxError = 0
            let lossless = try Self.written(frames, width: 48, height: 24, bands: 3, settings: exact).data
            #expect(data.count < lossless.count, "error 8: \(data.count) bytes, error 0: \(lossless.count)")
        }
    }

    @Test("frames whose colours change (reds, then greens and blues): the palette follows, each frame close to its source")
    func paletteFollowsTheFrames() throws {
        // 4,096 colours a frame: quantised to 255, so a few levels of error; under the first
        // frame's palette the greens would be ~100 levels off.
        let frames: [[UInt8]] = (0..<8).map { f in
            (0..<64 * 64).flatMap { i -> [UInt8] in
                let (x, y) = (UInt8(i % 64 * 4), UInt8(i / 64 * 4))
                return f < 4 ? [x, y / 4, UInt8(f * 8)] : [UInt8(f * 8), x, 255 - y]
            }
        }
        for settings in Self.settings(interframeMaxError: 8) {
            let (_, gif) = try Self.written(frames, width: 64, height: 64, bands: 3, settings: settings)
            let decoded = try Self.rgba(gif)
            for (f, frame) in frames.enumerated() {
                let error = (0..<64 * 64 * 3).reduce(0) { $0 + abs(Int(decoded[f][$1 / 3 * 4 + $1 % 3]) - Int(frame[$1])) }
                let mean = Double(error) / Double(64 * 64 * 3)
                #expect(mean < 6, "frame \(f), repack \(settings.repack): mean error \(mean)")
            }
        }
    }

    @Test("a frame of random colours, far more than a palette holds: every pixel is shown as the palette colour nearest to it")
    func nearestColour() throws {
        // 9,216 pixels of random colours, so libimagequant's 255 entries are nearly all used and
        // a search that stops too early or looks one way only picks a farther one somewhere.
        var random = SeededRandom(seed: 16)
        let frame = (0..<96 * 96 * 3).map { _ in UInt8.random(in: 0...255, using: &random) }
        for settings in Self.settings(interframeMaxError: 0) {
            let (_, gif) = try Self.written([frame], width: 96, height: 96, bands: 3, settings: settings)
            let decoded = try Self.rgba(gif)[0]
            var used = Set<[Int]>()
            for i in 0..<96 * 96 { used.insert((0..<3).map { Int(decoded[i * 4 + $0]) }) }
            let palette = Array(used)
            #expect(palette.count > 200, "only \(palette.count) colours used: the test measures little")
            func distance(_ i: Int, _ colour: [Int]) -> Int {
                (0..<3).reduce(0) { $0 + (Int(frame[i * 3 + $1]) - colour[$1]) * (Int(frame[i * 3 + $1]) - colour[$1]) }
            }
            var farther = 0
            for i in 0..<96 * 96 {
                let shown = distance(i, (0..<3).map { Int(decoded[i * 4 + $0]) })
                if palette.contains(where: { distance(i, $0) < shown }) { farther += 1 }
            }
            #expect(farther == 0, "repack \(settings.repack): \(farther) pixels shown with a colour farther than another of the palette")
        }
    }

    @Test(
        "the nearest-colour searches (eight entries at a time, and outwards by r + g + b) give a full scan's index: the nearest, the lowest among equals, never the see-through entry, across palettes in turn"
    )
    func nearestIndex() throws {
        var random = SeededRandom(seed: 1616)
        var rgb: [UInt8] = []
        var counts: [Int32] = []
        var seeThrough: [Int32] = []
        for k in 0..<120 {
            let count = [0, 1, 2, 3, 16, 128, 254, 255][k % 8] + (k % 8 == 5 ? Int.random(in: 0...100, using: &random) : 0)
            let (base, spread) = (Int.random(in: 0...255, using: &random), Int.random(in: 1...256, using: &random))
            var palette = [UInt8](repeating: 0, count: 256 * 3)
            for i in 0..<count {
                for c in 0..<3 { palette[i * 3 + c] = UInt8((base + Int.random(in: 0..<spread, using: &random)) % 256) }
                // Duplicates and colours equally far from a pixel, so the lowest index must win.
                if i > 0 && k % 3 == 0 && i % 2 == 1 { palette.replaceSubrange(i * 3..<i * 3 + 3, with: palette[(i - 1) * 3..<i * 3]) }
                if k % 4 == 1 && i % 5 == 4 { for c in 0..<3 { palette[i * 3 + c] = UInt8(min(255, Int(palette[c]) + (c == i % 3 ? 2 : 0))) } }
            }
            rgb += palette
            counts.append(Int32(count))
            seeThrough.append(count > 0 && k % 2 == 0 ? Int32(Int.random(in: 0..<count, using: &random)) : -1)
        }
        // Random colours, and runs of alike ones (the search starts from the last answer).
        var colours: [UInt32] = []
        for i in 0..<3_000 {
            let colour =
                i % 3 == 0 && !colours.isEmpty
                ? colours.last! ^ UInt32(Int.random(in: 0...3, using: &random) * 0x010101) : UInt32.random(in: 0...0xffffff, using: &random)
            colours.append(colour & 0xffffff)
        }
        // Both searches: every entry at once (AVX2, what the writer uses where the processor has
        // it), and outwards from the colour's r + g + b (elsewhere).
        for vector: Int32 in [1, 0] {
            let mismatches = pm_gif_nearest_mismatches(rgb, counts, seeThrough, Int32(counts.count), colours, Int32(colours.count), vector)
            if vector == 1 && mismatches == -2 { continue } // no AVX2 on this processor
            #expect(
                mismatches == 0,
                "vector \(vector): \(mismatches) of \(counts.count * colours.count) colours mapped to another index than a full scan's")
        }
    }

    @Test(
        "alpha: see-through stays see-through, opaque stays opaque; a pixel turning see-through turns see-through (the frame before is disposed), and what stays is shown"
    )
    func alpha() throws {
        // 32×16: left half see-through, right half red; frame 1 draws a blue square in the
        // left half; frame 2 makes the right half see-through.
        func frame(_ f: Int) -> [UInt8] {
            (0..<32 * 16).flatMap { i -> [UInt8] in
                let (x, y) = (i % 32, i / 32)
                if f >= 1 && x >= 4 && x < 10 && y >= 4 && y < 10 { return [0, 0, 255, 255] }
                if x < 16 { return [0, 0, 0, 0] }
                return f == 2 ? [0, 0, 0, 0] : [255, 0, 0, 255]
            }
        }
        let frames = (0..<3).map(frame)
        for settings in Self.settings(interframeMaxError: 8) {
            let (_, gif) = try Self.written(frames, width: 32, height: 16, bands: 4, settings: settings)
            #expect(gif.image.bands == 4)
            let decoded = try Self.rgba(gif)
            func pixel(_ f: Int, _ x: Int, _ y: Int) -> [UInt8] { Array(decoded[f][(y * 32 + x) * 4..<(y * 32 + x) * 4 + 4]) }
            #expect(pixel(0, 2, 2)[3] == 0 && pixel(0, 12, 12)[3] == 0)
            #expect(pixel(0, 20, 8) == [255, 0, 0, 255])
            #expect(pixel(1, 5, 5) == [0, 0, 255, 255])
            #expect(pixel(1, 2, 2)[3] == 0 && pixel(1, 12, 12)[3] == 0)
            #expect(pixel(1, 20, 8) == [255, 0, 0, 255])
            #expect(pixel(2, 20, 8)[3] == 0, "repack \(settings.repack): the right half turned see-through")
            #expect(pixel(2, 5, 5) == [0, 0, 255, 255], "repack \(settings.repack): the square stays")
            #expect(pixel(2, 2, 2)[3] == 0)
        }
    }

    @Test(
        "few colours, low effort: see-through pixels of the first frame stay see-through when the palette has no see-through entry",
        arguments: [1, 2, 3])
    func seeThroughWithFewColours(bits: Int) throws {
        // Random colours, every tenth pixel see-through: at effort 3 libimagequant's palette of
        // 2^bits − 1 colours may have no alpha-0 entry (found by review).
        var random = SeededRandom(seed: 5)
        let pixels = (0..<16 * 16).flatMap { i -> [UInt8] in
            i % 10 == 0
                ? [0, 0, 0, 0]
                : [
                    UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random),
                    255,
                ]
        }
        var settings = GIFSettings(paletteBits: bits)
        settings.repack = false
        let (_, gif) = try Self.written([pixels, pixels], width: 16, height: 16, bands: 4, settings: settings)
        let decoded = try Self.rgba(gif)
        for f in 0..<2 {
            let wrong = (0..<16 * 16).filter { (decoded[f][$0 * 4 + 3] == 0) != ($0 % 10 == 0) }.count
            #expect(wrong == 0, "\(bits) bits, frame \(f): \(wrong) pixels with the wrong alpha")
        }
    }

    /// The colour tables of a GIF: the global one's size (0: none), then each image's local one (0: none).
    static func tableSizes(_ gif: Data) throws -> (global: Int, locals: [Int]) {
        let bytes = [UInt8](gif)
        let blocks = try GIFRepackTests.blocks(bytes)
        func size(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 1 << (Int(flags & 7) + 1) : 0 }
        let locals = blocks.filter { bytes[$0.range.lowerBound] == 0x2C }.map { size(bytes[$0.range.lowerBound + 9]) }
        return (size(bytes[10]), locals)
    }

    @Test(
        "fewer bits give a smaller table: at most 2^bits − 1 colours, and the table of 2^bits entries holds the index for unchanged pixels",
        arguments: [2, 4, 7])
    func paletteBits(bits: Int) throws {
        let frames = Array(Self.fewColourFrames().prefix(2)) // 40 colours, a gradient-free mix
        var settings = GIFSettings(paletteBits: bits)
        settings.repack = false
        let (data, _) = try Self.written(frames, width: 64, height: 32, bands: 3, settings: settings)
        let tables = try Self.tableSizes(data)
        #expect(tables.global <= 1 << bits, "\(bits) bits: a global table of \(tables.global)")
        #expect(tables.locals.allSatisfy { $0 <= 1 << bits }, "\(bits) bits: local tables \(tables.locals)")
    }

    @Test(
        "a frame's palette comes from its changed pixels only: see-through source pixels (cleared by disposing the frame before) add no colour, so the global palette is kept"
    )
    func paletteOfChangedPixels() throws {
        // 4×1: A B A B, then B, (see-through), (see-through), A: both colours are in the global
        // palette, so the second frame needs no local table (found by review).
        let (a, b, clear): ([UInt8], [UInt8], [UInt8]) = ([200, 40, 40, 255], [40, 40, 200, 255], [0, 0, 0, 0])
        let frames = [a + b + a + b, b + clear + clear + a]
        for settings in Self.settings(interframeMaxError: 0) {
            let (data, gif) = try Self.written(frames, width: 4, height: 1, bands: 4, settings: settings)
            #expect(try Self.tableSizes(data).locals.allSatisfy { $0 == 0 }, "repack \(settings.repack)")
            let decoded = try Self.rgba(gif)
            #expect(decoded[1] == b + clear + clear + a, "repack \(settings.repack): \(decoded[1])")
        }
    }

    @Test("timing: delays and loop count as libvips' own saver writes them", arguments: [0, 1, 3])
    func timing(loop: Int) throws {
        let frames = Array(Self.fewColourFrames().prefix(3))
        let delays = [100, 40, 250]
        let ours = try Self.written(frames, width: 64, height: 32, bands: 3, delays: delays, loop: loop, settings: GIFSettings(paletteBits: 8)).gif
        var dithered = GIFSettings(paletteBits: 8)
        dithered.dither = 1 // libvips' saver (cgif)
        dithered.repack = false
        let libvips = try Self.written(frames, width: 64, height: 32, bands: 3, delays: delays, loop: loop, settings: dithered).gif
        #expect(ours.delays == delays)
        #expect(ours.delays == libvips.delays)
        #expect(ours.loop == libvips.loop, "loop \(loop): ours \(ours.loop), libvips' \(libvips.loop)")
    }

    @Test("one frame: a still GIF, the same pixels")
    func still() throws {
        let frame = Self.fewColourFrames()[2]
        let image = try Vips.Image.fromRGB(frame, width: 64, height: 32)
        let gif = try GIFReader.read(try image.gifData(paletteBits: 8))
        #expect(gif.frames == 1)
        let decoded = try Self.rgba(gif)[0]
        #expect(Self.differingPixels(decoded, frame) == 0)
    }

    @Test("grey and 16-bit frames are written as their sRGB colours")
    func otherFormats() throws {
        let values = (0..<32 * 16).map { UInt8($0 % 32 * 8) }
        let grey = try Vips.Image.fromPixels(values, width: 32, height: 16, bands: 1)
        grey.pointer.pointee.Type = VIPS_INTERPRETATION_B_W
        let deep = try grey.colourspace(VIPS_INTERPRETATION_RGB16)
        #expect(deep.bandFormat == VIPS_FORMAT_USHORT && deep.bands == 3)
        for image in [grey, deep] {
            let decoded = try Self.rgba(try GIFReader.read(try image.gifData(paletteBits: 8)))[0]
            let rgb = values.flatMap { [$0, $0, $0] }
            #expect(Self.differingPixels(decoded, rgb) == 0, "\(image.bands) bands, format \(image.bandFormat)")
        }
    }

    @Test("a frame wider than a GIF can say is an error, not a crash")
    func tooWide() throws {
        let wide = try Vips.Image.noise(width: 70_000, height: 2)
        #expect(throws: Vips.Error.self) { try wide.gifData(paletteBits: 8) }
        #expect(Vips.takeError().isEmpty)
    }
}
