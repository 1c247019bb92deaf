import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// Animations over see-through backgrounds look as their source does. Generated GIFs
/// (sprites moving over transparency under every disposal, a frame that clears to see-through,
/// local palettes, partial, interlaced and small first frames, 1 to 300 frames) are written by
/// PushMedia and checked frame by frame with ``GIFOracle``: decoded by libvips and by Pillow,
/// each output frame against the source frame shown at its start time.
@Suite("GIF transparency and disposal")
struct GIFTransparencyTests {
    typealias Frame = GIFDecoderTests.Frame

    /// Eight well-apart colours; index 7 is the see-through one.
    static let palette: [UInt8] = [
        230, 40, 60, 40, 160, 80, 30, 60, 200, 250, 210, 40, 120, 40, 160, 20, 20, 20, 245, 245, 245, 0, 0, 0,
    ]
    static let clear: UInt8 = 7

    /// A sprite: a diamond of colours 0…5 on see-through.
    static func sprite(_ width: Int, _ height: Int, seed: Int) -> [UInt8] {
        (0..<width * height).map { i in
            let (x, y) = (i % width, i / width)
            let inside = abs(2 * x + 1 - width) * height + abs(2 * y + 1 - height) * width <= width * height
            return inside ? UInt8((x + y + seed) % 6) : clear
        }
    }

    /// How the animation is made.
    struct Kind: CustomStringConvertible, Sendable {
        var name: String
        var frames = 12
        /// Disposal of frame n.
        var disposal: @Sendable (Int) -> Int = { _ in 2 }
        var localPalettes = false
        var interlaced = false
        /// The first frame smaller than the screen.
        var smallFirst = false
        /// Frame 4 (of at least 6) clears the whole screen: frame 3 covers it and is disposed.
        var clearsScreen = false
        var description: String { "\(name), \(frames) frames" }
    }

    static let width = 48, height = 24

    /// The GIF of `kind`: a static opaque bar along the bottom drawn by the first frame, and a
    /// sprite moving over the see-through rest.
    static func gif(_ kind: Kind) -> Data {
        var frames: [Frame] = []
        let (w, h) = (width, height)
        for n in 0..<kind.frames {
            var frame: Frame
            if n == 0 {
                if kind.smallFirst {
                    frame = Frame(left: 6, top: 4, width: 20, height: 10, indices: sprite(20, 10, seed: 0))
                } else {
                    let indices = (0..<w * h).map { i in
                        i / w >= h - 3 ? UInt8(6) : (i % w < 10 && i / w < 8 ? sprite(10, 8, seed: 1)[i / w * 10 + i % w] : clear)
                    }
                    frame = Frame(width: w, height: h, indices: indices)
                }
            } else if kind.clearsScreen && n == 3 && kind.frames >= 6 {
                frame = Frame(width: w, height: h, indices: (0..<w * h).map { i in i % 5 == 0 ? UInt8(i % 6) : clear })
            } else if kind.clearsScreen && n == 4 && kind.frames >= 6 {
                frame = Frame(left: 2, top: 2, width: 2, height: 2, indices: [clear, clear, clear, clear])
            } else {
                let (sw, sh) = (10 + n % 3, 8 + n % 2)
                let x = (n * 5) % (w - sw)
                let y = (n * 3) % (h - 3 - sh)
                frame = Frame(left: x, top: y, width: sw, height: sh, indices: sprite(sw, sh, seed: n))
            }
            frame.transparent = clear
            frame.disposal = kind.clearsScreen && n == 3 ? 2 : kind.disposal(n)
            frame.interlaced = kind.interlaced && n % 2 == 1
            if kind.localPalettes && n % 3 == 1 {
                // The same colours in another order (see-through still 7), indices moved along.
                let order = [3, 0, 5, 1, 4, 2, 6, 7]
                frame.table = order.flatMap { Array(palette[$0 * 3..<$0 * 3 + 3]) }
                frame.indices = frame.indices.map { UInt8(order.firstIndex(of: Int($0))!) }
            }
            frames.append(frame)
        }
        return GIFDecoderTests.gif(width: w, height: h, global: palette, frames: frames)
    }

    static let kinds: [Kind] = [
        Kind(name: "disposal 0", disposal: { _ in 0 }),
        Kind(name: "disposal 1", disposal: { _ in 1 }),
        Kind(name: "disposal 2"),
        Kind(name: "disposal 3", disposal: { _ in 3 }),
        Kind(name: "mixed disposals", frames: 16, disposal: { [1, 2, 3, 0, 2, 2, 3, 1][$0 % 8] }),
        Kind(name: "a frame that clears the screen", clearsScreen: true),
        Kind(name: "local palettes", localPalettes: true),
        Kind(name: "interlaced frames", disposal: { $0 % 2 == 0 ? 2 : 3 }, interlaced: true),
        Kind(name: "a first frame smaller than the screen", smallFirst: true),
        Kind(name: "one frame", frames: 1),
        Kind(name: "two frames", frames: 2),
        Kind(name: "many frames", frames: 300, disposal: { $0 % 5 == 4 ? 1 : 2 }),
    ]

    /// Writes `animation` with `settings`, through the decoder's direct path and, for a cut at
    /// its own size, through libvips (the same bytes), and checks every frame against the
    /// source at `path` cut to `rect`.
    static func expectFaithful(
        _ animation: Animation, _ settings: GIFSettings, source path: String, rect: PixelRect, atLeast: Double, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let data = try animation.gifData(settings).data
        if let cut = animation.directCut, !cut.reduces {
            let viaLibvips = try GIFTranscodeTests.viaLibvips(animation).gifData(settings).data
            #expect(viaLibvips == data, "\(label): the direct path and libvips' differ", sourceLocation: sourceLocation)
        }
        let report = try GIFOracle.compare(data, source: path, rect: rect)
        #expect(report.worst >= atLeast, "\(label), \(settings.repack ? "re-packed" : "as written"): \(report)", sourceLocation: sourceLocation)
    }

    @Test(
        "Generated sprites over see-through, at their own size: every frame exactly its source's, with and without the re-packing pass, every frame, every 3rd and capped at 7 fps",
        arguments: kinds)
    func exactAtOwnSize(kind: Kind) throws {
        let path = try GIFTranscodeTests.write(Self.gif(kind), "exact-\(kind.name.filter(\.isLetter))")
        let animation = try GIFTranscodeTests.animation(path)
        let rect = PixelRect(x: 0, y: 0, width: Self.width, height: Self.height)
        for repack in [false, true] {
            let settings = GIFSettings(paletteBits: 8, interframeMaxError: 0, repack: repack)
            try Self.expectFaithful(animation, settings, source: path, rect: rect, atLeast: 99, "\(kind)")
            guard kind.frames > 3 else { continue }
            try Self.expectFaithful(animation.keepingEvery(3), settings, source: path, rect: rect, atLeast: 99, "\(kind), every 3rd")
            try Self.expectFaithful(animation.cappingFrameRate(7), settings, source: path, rect: rect, atLeast: 99, "\(kind), 7 fps")
        }
        // The default inter-frame error: the colours are far apart, so still exact.
        try Self.expectFaithful(animation, GIFSettings(paletteBits: 8), source: path, rect: rect, atLeast: 99, "\(kind), default settings")
    }

    @Test(
        "Generated sprites over see-through, cut and resized (a ladder rung's scale, fewer colours): every frame at least 35 dB under both decoders",
        arguments: kinds)
    func cutAndResized(kind: Kind) throws {
        let path = try GIFTranscodeTests.write(Self.gif(kind), "resized-\(kind.name.filter(\.isLetter))")
        let animation = try GIFTranscodeTests.animation(path)
        let rect = PixelRect(x: 4, y: 2, width: 40, height: 20)
        for (size, bits) in [(PixelSize(width: 40, height: 20), 3), (PixelSize(width: 30, height: 15), 8)] {
            let cut = animation.cut(rect, to: size)
            try Self.expectFaithful(cut, GIFSettings(paletteBits: bits), source: path, rect: rect, atLeast: 35, "\(kind), \(size), \(bits) bits")
        }
    }

    @Test(
        "gif.py's stickers (gears turning, an envelope sliding into a slot, a hand waving, a badge blinking out) through the whole pipeline: every frame of the expanded GIF at least 35 dB against the source cut by its sourceRect"
    )
    func pipeline() throws {
        let folder = try Fixtures.temporaryFolder()
        for name in ["gears", "envelope", "wave", "blink"] {
            let source = folder.appendingPathComponent("\(name).gif")
            try Fixtures.benchmarkGIF(name, to: source, width: 240, height: 120, frames: 24)
            let out = folder.appendingPathComponent("out-\(name)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
                .process(InputFile(path: source.path, source: "\(name).gif"))
            #expect(item.status == .ok, "\(name): \(item.error?.message ?? "")")
            let expanded = try #require(item.attachment(.expanded))
            let data = try Data(contentsOf: out.appendingPathComponent(expanded.file))
            let rect = GIFOracle.pixelRect(expanded.sourceRect, width: 240, height: 120)
            let report = try GIFOracle.compare(data, source: source.path, rect: rect)
            #expect(report.worst >= 35, "\(name): \(report)")
        }
    }
}
