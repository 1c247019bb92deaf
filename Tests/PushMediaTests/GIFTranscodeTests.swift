import CPushMediaTestSupport
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// A GIF cut at its own size is written straight from PushMedia's decoder
/// (`pm_gif_transcode`, gif_transcode.c), comparing only where frames may have moved. Its bytes
/// must be those of the libvips pipeline it replaces (the decoder's image cut by libvips, then
/// `pm_gif_write` and the re-packing pass) for every file, cut, frame selection and setting.
@Suite("GIF cut without libvips")
struct GIFTranscodeTests {
    typealias Frame = GIFDecoderTests.Frame

    /// The GIF at `path` as the pipeline opens it when PushMedia's decoder takes it (nothing to
    /// resize or colour-manage).
    /// A gif.py GIF made in a fresh folder, as an ``animation(_:)``.
    static func benchmarkAnimation(_ name: String, width: Int, height: Int, frames: Int) throws -> Animation {
        let source = try Fixtures.temporaryFolder().appendingPathComponent("\(name).gif")
        try Fixtures.benchmarkGIF(name, to: source, width: width, height: height, frames: frames)
        return try animation(source.path)
    }

    static func animation(_ path: String) throws -> Animation {
        try Vips.start()
        guard let file = try GIFFile.open(path: path) else {
            throw Vips.Error(operation: "gif_read", message: "PushMedia's decoder declined \(path)")
        }
        return Animation(frames: .gif(file, fit: nil), frameSize: file.frameSize, delays: file.delays.map { $0 > 0 ? $0 : 100 }, loop: 0)
    }

    /// The same animation written through libvips: the decoder's frames pulled by libvips.
    static func viaLibvips(_ animation: Animation) -> Animation {
        var copy = animation
        copy.frames = .decode { try animation.openFrames() }
        return copy
    }

    /// Every cut, frame selection and setting gives the libvips pipeline's bytes, and does not
    /// fall back to it.
    static func expectSameBytes(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let animation = try animation(path)
        let (w, h) = (animation.size.width, animation.size.height)
        let cuts = [
            PixelRect(x: 0, y: 0, width: w, height: h),
            PixelRect(x: w / 5, y: h / 7, width: max(1, w / 2), height: max(1, h / 3)),
            PixelRect(x: w - 1, y: 0, width: 1, height: h),
        ]
        let settings = [
            GIFSettings(paletteBits: 8),
            GIFSettings(paletteBits: 8, interframeMaxError: 0),
            GIFSettings(paletteBits: 6, interframeMaxError: 16),
            GIFSettings(paletteBits: 8, interframeMaxError: 32, reusePalette: false),
            GIFSettings(paletteBits: 8, interframeMaxError: 8, repack: false),
        ]
        for rect in cuts {
            let cut = animation.cut(rect, to: rect.size)
            try #require(cut.directCut != nil, "a cut at its own size keeps the file", sourceLocation: sourceLocation)
            for kept in [cut, cut.keepingEvery(3), cut.cappingFrameRate(7)] {
                for setting in settings {
                    let gifCut = try #require(kept.directCut)
                    let direct = try #require(
                        try gifCut.gifAttempt(frames: kept.indices, delays: kept.delays, loop: kept.loop, setting, until: nil).data,
                        "written from the decoder", sourceLocation: sourceLocation)
                    let expected = try viaLibvips(kept).gifData(setting)
                    #expect(
                        direct == expected.data && (expected.width, expected.height) == (rect.width, rect.height),
                        "\(rect), frames \(kept.indices.prefix(5))…, \(setting): \(direct.count) B, through libvips \(expected.data.count) B",
                        sourceLocation: sourceLocation)
                    #expect(try kept.gifData(setting).data == direct, "Animation.gifData takes the direct way", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Proxies made from the decoder are libvips' (vips_shrink of each frame), for box factors
    /// that divide the size, that leave part of a block (rounded up and down) and 1.
    static func expectSameProxies(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let animation = try animation(path)
        let (w, h) = (animation.size.width, animation.size.height)
        for rect in [PixelRect(x: 0, y: 0, width: w, height: h), PixelRect(x: w / 5, y: h / 7, width: max(1, w * 3 / 5), height: max(1, h / 2))] {
            let cut = animation.cut(rect, to: rect.size)
            let long = max(rect.width, rect.height)
            for positions in [Array(0..<cut.frameCount), Array(stride(from: 1, to: cut.frameCount, by: 3))] where !positions.isEmpty {
                for longSide in Set([long, long / 2, long / 3, long / 7, 64, 13].filter { $0 >= 1 }) {
                    let factor = max(1, long / longSide)
                    let gifCut = try #require(cut.directCut)
                    let direct = try gifCut.proxies(frames: positions.map { cut.indices[$0] }, factor: factor, until: nil)
                    let expected = try viaLibvips(cut).proxies(positions, longSide: longSide)
                    let mine = try cut.proxies(positions, longSide: longSide)
                    #expect(mine.count == expected.count, sourceLocation: sourceLocation)
                    for (a, b) in zip(mine, expected) {
                        let same = try a.memoryBytes() == b.memoryBytes()
                        #expect(
                            a.width == b.width && a.height == b.height && a.bands == b.bands && same,
                            "\(rect), factor \(factor): \(a.width)×\(a.height)×\(a.bands), libvips \(b.width)×\(b.height)×\(b.bands)",
                            sourceLocation: sourceLocation)
                    }
                    #expect(direct.height == mine.reduce(0) { $0 + $1.height }, sourceLocation: sourceLocation)
                }
            }
            // One frame as it is (the representative frame the subject is found on and the still
            // thumbnail is cut from): the decoder's canvas copied, libvips' pixels.
            for position in Set([0, cut.frameCount / 2, cut.frameCount - 1]) {
                let a = try cut.frame(position)
                let b = try viaLibvips(cut).frame(position)
                let same = try a.memoryBytes() == b.memoryBytes()
                #expect(
                    a.width == b.width && a.height == b.height && a.bands == b.bands && a.interpretation == b.interpretation && same,
                    "\(rect), frame \(position): \(a.width)×\(a.height)×\(a.bands), libvips \(b.width)×\(b.height)×\(b.bands)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "Proxies for the representative frame, and the frame itself: libvips' box averages and pixels, from real and hand-built GIFs, three and four bands"
    )
    func proxies() throws {
        try Self.expectSameProxies(try Fixtures.url("graphics/animated.gif").path)
        let folder = try Fixtures.temporaryFolder()
        for name in ["product-badge", "screen-recording"] {
            let file = folder.appendingPathComponent("\(name).gif")
            try Fixtures.benchmarkGIF(name, to: file, width: 150, height: 77, frames: 14)
            try Self.expectSameProxies(file.path)
        }
        for transparent in [nil, UInt8(3)] {
            let frames = (0..<9).map { n in
                Frame(
                    left: (n * 3) % 11, top: (n * 2) % 7, width: 12 + n % 4, height: 6 + n % 3,
                    indices: GIFDecoderTests.pattern(12 + n % 4, 6 + n % 3, seed: n), disposal: n % 4, transparent: transparent)
            }
            try Self.expectSameProxies(try Self.write(GIFDecoderTests.gif(width: 29, height: 17, global: GIFDecoderTests.palette, frames: frames)))
        }
    }

    static func write(_ data: Data, _ name: String = #function) throws -> String {
        let path = try Fixtures.temporaryFolder(name).appendingPathComponent("in.gif").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("Real GIFs: the fixture and gif.py's animations (a photo quantised by libimagequant, flat UI, text, noise)")
    func realFiles() throws {
        try Self.expectSameBytes(try Fixtures.url("graphics/animated.gif").path)
        let folder = try Fixtures.temporaryFolder()
        for name in ["product-badge", "screen-recording", "text-banner", "noisy"] {
            let file = folder.appendingPathComponent("\(name).gif")
            try Fixtures.benchmarkGIF(name, to: file, width: 160, height: 80, frames: 20)
            try Self.expectSameBytes(file.path)
        }
    }

    @Test("Frames over one another with every disposal, with and without see-through indices, and a first frame smaller than the screen")
    func disposals() throws {
        let palette = GIFDecoderTests.palette
        for transparent in [nil, UInt8(3)] {
            let frames = (0..<9).map { n in
                Frame(
                    left: (n * 3) % 11, top: (n * 2) % 7, width: 12 + n % 4, height: 6 + n % 3,
                    indices: GIFDecoderTests.pattern(12 + n % 4, 6 + n % 3, seed: n), disposal: n % 4, transparent: transparent)
            }
            try Self.expectSameBytes(try Self.write(GIFDecoderTests.gif(width: 28, height: 16, global: palette, frames: frames)))
        }
        // Frames that leave most of the screen as it is, so most of each comparison is skipped.
        let small = (0..<12).map { n in
            Frame(left: n, top: n % 5, width: 3, height: 2, indices: GIFDecoderTests.pattern(3, 2, seed: n), disposal: n % 3 == 2 ? 2 : 1)
        }
        let first = Frame(width: 24, height: 10, indices: GIFDecoderTests.pattern(24, 10, seed: 9))
        try Self.expectSameBytes(try Self.write(GIFDecoderTests.gif(width: 24, height: 10, global: palette, frames: [first] + small)))
    }

    @Test(
        "The direct way is decided from values: a cut outside the file or frames out of order are refused, not read; a fitted or libvips animation has no direct cut, a resized one is reduced on the way; nested cuts at their own size compose"
    )
    func directCutDecided() throws {
        let path = try Fixtures.url("graphics/animated.gif").path
        let animation = try Self.animation(path)
        let whole = try #require(animation.directCut)
        let (w, h) = (animation.size.width, animation.size.height)
        #expect(whole.rect == PixelRect(x: 0, y: 0, width: w, height: h))
        let outside = GIFFileCut(file: whole.file, rect: PixelRect(x: 1, y: 0, width: w, height: h))
        #expect(throws: Vips.Error.self) {
            try outside.gifAttempt(frames: [0, 1], delays: [100, 100], loop: 0, GIFSettings(paletteBits: 8), until: nil)
        }
        #expect(throws: Vips.Error.self) {
            try whole.gifAttempt(frames: [1, 0], delays: [100, 100], loop: 0, GIFSettings(paletteBits: 8), until: nil)
        }
        #expect(throws: Vips.Error.self) { try outside.proxies(frames: [0], factor: 1, until: nil) }
        #expect(!whole.proxyFactorFits(2 * max(w, h) + 1) && whole.proxyFactorFits(2 * min(w, h)))
        #expect(try GIFFile.open(path: try Fixtures.url("graphics/tiny.png").path) == nil, "not a GIF: left to libvips")
        #expect(animation.cut(whole.rect, to: PixelSize(width: w / 2, height: h / 2)).directCut?.reduces == true)
        #expect(Self.viaLibvips(animation).directCut == nil)
        var fitted = animation
        fitted.frames = .gif(whole.file, fit: Animation.GIFFit(inside: animation.size, colourManaged: true))
        #expect(fitted.directCut == nil)
        let inner = animation.cut(PixelRect(x: 2, y: 1, width: w - 4, height: h - 2), to: PixelSize(width: w - 4, height: h - 2))
            .cut(PixelRect(x: 1, y: 1, width: 3, height: 2), to: PixelSize(width: 3, height: 2))
        #expect(inner.directCut == GIFFileCut(file: whole.file, rect: PixelRect(x: 3, y: 2, width: 3, height: 2)))
    }

    @Test(
        "The scan reports libvips' header: size, frames, bands, every delay and the loop count (none, 0, 1, 5), and the probe from it is libvips' probe"
    )
    func scanMatchesLibvips() throws {
        var paths = [try Fixtures.url("graphics/animated.gif").path]
        let folder = try Fixtures.temporaryFolder()
        for loop in [nil, 0, 1, 5] as [Int?] {
            var frames = (0..<4).map { n in Frame(width: 6, height: 4, indices: GIFDecoderTests.pattern(6, 4, seed: n)) }
            frames[1].delay = 0
            frames[2].delay = 7
            frames[3].delay = nil
            let file = folder.appendingPathComponent("loop-\(loop.map(String.init) ?? "none").gif")
            try GIFDecoderTests.gif(width: 6, height: 4, global: GIFDecoderTests.palette, frames: frames, loop: loop).write(to: file)
            paths.append(file.path)
        }
        for path in paths {
            let gif = try #require(try GIFFile.open(path: path))
            let header = try Vips.Image.header(from: Vips.Source(path: path), failOn: .error, allPages: true)
            #expect(gif.frameSize == PixelSize(width: header.width, height: header.pageHeight), "\(path)")
            #expect(gif.frameCount == header.height / header.pageHeight && gif.bands == header.bands, "\(path)")
            #expect(gif.delays == header.intArray(field: "delay"), "\(path): \(gif.delays)")
            #expect(gif.loop == header.int(field: "loop"), "\(path): \(gif.loop)")
            var warnings: [String] = []
            #expect(try ImageProber.probe(gif: gif) == ImageProber.probe(path: path, format: .gif, warnings: &warnings), "\(path)")
        }
    }

    @Test("Bad input and time: a damaged frame fails as the decoder's error (corrupt input), a deadline gone stops it")
    func failures() throws {
        let frames = (0..<6).map { n in
            Frame(width: 16, height: 8, indices: GIFDecoderTests.pattern(16, 8, seed: n), badCodeAfter: n == 4 ? 20 : nil)
        }
        let damaged = try Self.animation(try Self.write(GIFDecoderTests.gif(width: 16, height: 8, global: GIFDecoderTests.palette, frames: frames)))
        let cut = try #require(damaged.directCut)
        do {
            _ = try cut.gifAttempt(frames: damaged.indices, delays: damaged.delays, loop: 0, GIFSettings(paletteBits: 8), until: nil)
            Issue.record("a damaged frame was written")
        } catch let error as Vips.Error {
            #expect(error.message.contains("frame 4: corrupt image data") && error.isSourceDecodeFailure, "\(error)")
        }
        let path = try Fixtures.url("graphics/animated.gif").path
        let animation = try Self.animation(path)
        do {
            _ = try #require(animation.directCut).gifAttempt(
                frames: animation.indices, delays: animation.delays, loop: 0, GIFSettings(paletteBits: 8),
                until: .now - .seconds(1))
            Issue.record("written past its deadline")
        } catch let error as Vips.Error {
            #expect(error.message.contains("time limit reached"), "\(error)")
        }
    }

    @Test(
        "The re-packing pass runs only where it decides whether an attempt fits: a GIF just over the budget is re-packed under it, one that fits is kept as written"
    )
    func repackOnlyNearTheLimit() throws {
        let animation = try Self.benchmarkAnimation("screen-recording", width: 480, height: 240, frames: 40)
        // The ladder's first rung as the writer makes it, and re-packed.
        var plain = ImageEncoder.gifSettings(EncodeSettings(paletteBits: 8))
        plain.repack = false
        let written = try animation.cappingFrameRate(Profile.default.animation.maxFramesPerSecond).gifData(plain).data
        let repacked = GIFRepack.smallest(written)
        try #require(
            repacked.count < written.count && Double(written.count) <= Double(repacked.count) * BudgetLadder.repackReach,
            "written \(written.count) B, re-packed \(repacked.count) B")
        func encoded(budget: Int) throws -> EncodedImage {
            try ImageEncoder.encode(
                .animation(animation), role: .expanded, as: .gif, budget: budget, profile: .default, deadline: .now + .seconds(120))
        }
        let tight = try encoded(budget: repacked.count)
        #expect(tight.data == repacked, "\(tight.data.count) B")
        #expect(tight.encoding.attempts == 1)
        let roomy = try encoded(budget: written.count)
        #expect(roomy.data == written, "\(roomy.data.count) B")
        #expect(roomy.encoding.attempts == 1)
    }

    @Test(
        "A GIF of one frame is decoded from the probe's scan: the same pixels and alpha as libvips' loader, at odd sizes, with and without a see-through index, and shrunk when larger than the decode"
    )
    func oneFrameFromTheScan() throws {
        let folder = try Fixtures.temporaryFolder()
        let shapes: [(Int, Int, UInt8?)] = [(1, 1, nil), (2, 2, 3), (3, 2, nil), (301, 17, 5), (2001, 1001, nil), (2001, 1001, 2)]
        for (width, height, transparent) in shapes {
            let frame = Frame(width: width, height: height, indices: GIFDecoderTests.pattern(width, height, seed: width), transparent: transparent)
            let source = folder.appendingPathComponent("one-\(width)x\(height)-\(transparent.map(String.init) ?? "opaque").gif")
            try GIFDecoderTests.gif(width: width, height: height, global: GIFDecoderTests.palette, frames: [frame], loop: nil).write(to: source)
            let run = ItemRun(
                input: InputFile(path: source.path, source: source.lastPathComponent), profile: .default,
                options: ProcessingOptions(outputDirectory: folder))
            var probed = try ProbedImage.probe(try Source.read(run), run)
            guard case .gif = probed.decoder else {
                Issue.record("\(source.lastPathComponent): not taken by PushMedia's decoder")
                continue
            }
            #expect(!probed.isAnimation)
            let mine = try Decoded.decode(probed, run)
            probed.decoder = .libvips
            let libvips = try Decoded.decode(probed, run)
            guard case .still(let a) = mine.pixels, case .still(let b) = libvips.pixels else {
                Issue.record("\(source.lastPathComponent): not a still")
                continue
            }
            #expect(
                a.width == b.width && a.height == b.height && a.bands == b.bands && mine.keepsAlpha == libvips.keepsAlpha,
                "\(source.lastPathComponent): \(a.width)×\(a.height)×\(a.bands), libvips \(b.width)×\(b.height)×\(b.bands)")
            #expect(try a.memoryBytes() == b.memoryBytes(), "\(source.lastPathComponent): other pixels")
            if width > 2000 { #expect(a.width < width, "shrunk to the decode size") }
        }
    }

    @Test("The pipeline writes a GIF cut at its own size from the decoder: the expanded variant of a 2:1 GIF")
    func pipeline() throws {
        let folder = try Fixtures.temporaryFolder()
        let source = folder.appendingPathComponent("banner.gif")
        try Fixtures.benchmarkGIF("text-banner", to: source, width: 320, height: 160, frames: 12)
        let run = ItemRun(
            input: InputFile(path: source.path, source: source.lastPathComponent), profile: .default,
            options: ProcessingOptions(outputDirectory: folder))
        let probed = try ProbedImage.probe(try Source.read(run), run)
        let decoded = try Decoded.decode(probed, run)
        let framed = try Framed.cut(decoded, around: try Subject.find(in: decoded, run), run)
        guard case .animation(let expanded) = framed.expanded else {
            Issue.record("the expanded variant is not an animation")
            return
        }
        // The file was opened once, when probed: the decode and both cuts read that scan.
        guard case .gif(let file) = probed.decoder, case .animation(let animation) = decoded.pixels,
            case .gif(let framesFile, nil) = animation.frames
        else {
            Issue.record("not read by PushMedia's decoder")
            return
        }
        #expect(framesFile === file)
        #expect(expanded.directCut == GIFFileCut(file: file, rect: framed.placement.expandedRect))
        let settings = GIFSettings(paletteBits: 8)
        #expect(try expanded.gifData(settings).data == (try Self.viaLibvips(expanded).gifData(settings).data))
    }
}
