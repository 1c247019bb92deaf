import CReduce
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// A GIF cut reduced straight from PushMedia's decoder (`pm_gif_reduced`, and `pm_gif_transcode`
/// with an output size): each frame is computed again only where the pixels its changes reach
/// lie, yet must be the whole frame's reduction (`pm_reduce_area`, the still decode's Lanczos3),
/// its colour weighted by alpha so that see-through pixels lend none.
@Suite("GIF cut reduced by the decoder")
struct GIFReduceTests {
    typealias Frame = GIFDecoderTests.Frame

    /// Each frame of `cut` at its own size, reduced as a whole by `pm_reduce_area` (vector or
    /// plain loops), alpha divided back: what every reduced frame must be.
    static func expected(_ cut: GIFFileCut, frames: [Int], vectorized: Bool) throws -> [Data] {
        let own = GIFFileCut(file: cut.file, rect: cut.rect)
        return try frames.map { frame in
            let whole = try own.frame(frame, until: nil)
            let reduced = try whole.reduced(
                PixelRect(x: 0, y: 0, width: whole.width, height: whole.height), to: cut.size, vectorized: vectorized)
            var bytes = [UInt8](try reduced.memoryBytes())
            if reduced.bands == 4 { GIFOracle.unpremultiply(&bytes) }
            return Data(bytes)
        }
    }

    /// Every frame (and every 3rd) of `path`, for cuts and sizes from a 1×1 to the whole, equals
    /// ``expected(_:frames:vectorized:)``.
    static func expectWholeFrameReductions(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let animation = try GIFTranscodeTests.animation(path)
        let (w, h) = (animation.size.width, animation.size.height)
        let inner = PixelRect(x: w / 5, y: h / 7, width: max(1, w * 3 / 5 + 1), height: max(1, h / 2))
        let cases: [(PixelRect, PixelSize)] = [
            (PixelRect(x: 0, y: 0, width: w, height: h), PixelSize(width: max(1, w / 2), height: max(1, h / 2))),
            (PixelRect(x: 0, y: 0, width: w, height: h), PixelSize(width: max(1, w * 2 / 3 | 1), height: max(1, h - 1))),
            (inner, PixelSize(width: max(1, (inner.width + 2) / 3), height: max(1, (inner.height + 1) / 2))),
            (inner, PixelSize(width: inner.width, height: max(1, inner.height / 3))),
            (inner, PixelSize(width: max(1, inner.width / 4), height: inner.height)),
            (PixelRect(x: w - 2, y: 0, width: 2, height: min(h, 16)), PixelSize(width: 1, height: 1)),
        ]
        for (rect, size) in cases {
            let cut = try #require(
                animation.cut(rect, to: size).directCut, "\(rect) to \(size) is reduced by the decoder", sourceLocation: sourceLocation)
            #expect(cut.size == size && cut.reduces == (size != rect.size), sourceLocation: sourceLocation)
            for frames in [Array(0..<animation.frameCount), Array(stride(from: 1, to: animation.frameCount, by: 3))] where !frames.isEmpty {
                let reduced = try cut.reduced(frames: frames, until: nil)
                #expect(reduced.width == size.width && reduced.height == size.height * frames.count, sourceLocation: sourceLocation)
                let bytes = try reduced.memoryBytes()
                let frameBytes = bytes.count / frames.count
                for vectorized in [true, false] {
                    let expected = try expected(cut, frames: frames, vectorized: vectorized)
                    for (k, want) in expected.enumerated() {
                        let got = bytes.subdata(in: k * frameBytes..<(k + 1) * frameBytes)
                        #expect(got == want, "\(rect) to \(size), frame \(frames[k]), vector \(vectorized)", sourceLocation: sourceLocation)
                    }
                }
                // One frame alone (the still thumbnail's) is the same frame of the stack.
                let last = try cut.frame(frames[frames.count - 1], until: nil)
                #expect(try last.memoryBytes() == bytes.subdata(in: bytes.count - frameBytes..<bytes.count), sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "every frame is the whole frame's Lanczos3 reduction, alpha weighted, however little it changes: sprites over see-through under every disposal, small frames moving over an opaque picture, the fixture; 1×1 and odd sizes"
    )
    func wholeFrameReductions() throws {
        try Self.expectWholeFrameReductions(try Fixtures.url("graphics/animated.gif").path)
        for kind in GIFTransparencyTests.kinds where kind.frames <= 16 {
            try Self.expectWholeFrameReductions(
                try GIFTranscodeTests.write(GIFTransparencyTests.gif(kind), "reduce-\(kind.name.filter(\.isLetter))"))
        }
        // Three bands: small frames moving over a full first frame, odd screen.
        let moving = (0..<9).map { n in
            Frame(
                left: (n * 7) % 31, top: (n * 5) % 13, width: 3 + n % 4, height: 2 + n % 3,
                indices: GIFDecoderTests.pattern(3 + n % 4, 2 + n % 3, seed: n), disposal: [1, 2, 3][n % 3])
        }
        let first = Frame(width: 37, height: 19, indices: GIFDecoderTests.pattern(37, 19, seed: 11))
        try Self.expectWholeFrameReductions(
            try GIFTranscodeTests.write(
                GIFDecoderTests.gif(width: 37, height: 19, global: GIFDecoderTests.palette, frames: [first] + moving), "reduce-moving"))
    }

    @Test(
        "a sticker reduced three times: every pixel a GIF shows keeps the sticker's own colour at its edges, and the written GIF shows the reduced frames"
    )
    func stickerKeepsItsColour() throws {
        // A red disc moving over see-through (index 1), 60×30.
        let (w, h) = (60, 30)
        let frames = (0..<6).map { n -> Frame in
            let indices = (0..<w * h).map { i -> UInt8 in
                let (x, y) = (i % w - 20 - 3 * n, i / w - 15)
                return x * x + y * y <= 100 ? 0 : 1
            }
            return Frame(width: w, height: h, indices: indices, disposal: 2, transparent: 1)
        }
        let path = try GIFTranscodeTests.write(
            GIFDecoderTests.gif(width: w, height: h, global: [255, 0, 0, 0, 0, 0], frames: frames), "reduce-sticker")
        let animation = try GIFTranscodeTests.animation(path)
        let size = PixelSize(width: 20, height: 10)
        let cut = try #require(animation.cut(PixelRect(x: 0, y: 0, width: w, height: h), to: size).directCut)
        let reduced = [UInt8](try cut.reduced(frames: Array(0..<6), until: nil).memoryBytes())
        var shown = 0
        var partial = 0
        for p in stride(from: 0, to: reduced.count, by: 4) where reduced[p + 3] >= 128 {
            shown += 1
            if reduced[p + 3] < 255 { partial += 1 }
            #expect(reduced[p] >= 253 && reduced[p + 1] <= 2 && reduced[p + 2] <= 2, "pixel \(p / 4): \(reduced[p..<p + 4])")
        }
        #expect(shown > 6 * 20 && partial > 0, "\(shown) pixels shown, \(partial) of them partly see-through")
        // The written GIF (eight bits, every change written) shows those frames.
        let written = try cut.writtenGIF(
            frames: Array(0..<6), delays: Array(repeating: 100, count: 6), loop: 0, GIFSettings(paletteBits: 8, interframeMaxError: 0),
            until: nil
        ).wholeGIF
        let decoded = try GIFOracle.libvips(written)
        #expect(decoded.width == size.width && decoded.height == size.height && decoded.rgba.count == 6)
        let pixels = size.width * size.height
        for (k, frame) in decoded.rgba.enumerated() {
            let want = GIFOracle.normalised(reduced[k * pixels * 4..<(k + 1) * pixels * 4], bands: 4, pixels: pixels)
            #expect(GIFOracle.psnr(frame, want) >= 45, "frame \(k): \(GIFOracle.psnr(frame, want)) dB")
        }
    }

    @Test(
        "which cuts the decoder reduces: a resized last cut, up to PM_REDUCE_MOST a side and no larger; a ladder rung's scale rounded as libvips' resize; not a cut of resized frames"
    )
    func reducedCutDecided() throws {
        let animation = try GIFTranscodeTests.animation(try Fixtures.url("graphics/animated.gif").path)
        let (w, h) = (animation.size.width, animation.size.height)
        let whole = PixelRect(x: 0, y: 0, width: w, height: h)
        let half = try #require(animation.cut(whole, to: PixelSize(width: w / 2, height: h / 2)).directCut)
        #expect(half.reduces && half.rect == whole && half.size == PixelSize(width: w / 2, height: h / 2))
        let most = Int(PM_REDUCE_MOST)
        #expect(animation.cut(whole, to: PixelSize(width: (w + most - 1) / most, height: h)).directCut != nil)
        #expect(animation.cut(whole, to: PixelSize(width: w / most - 1, height: h)).directCut == nil, "a shrink beyond the reduction's")
        #expect(animation.cut(whole, to: PixelSize(width: w + 1, height: h)).directCut == nil, "larger")
        #expect(
            animation.cut(whole, to: PixelSize(width: w / 2, height: h / 2)).cut(
                PixelRect(x: 1, y: 1, width: 4, height: 4), to: PixelSize(width: 4, height: 4)
            )
            .directCut == nil, "a rectangle of resized frames")
        let own = try #require(animation.directCut)
        #expect(own.scaled(by: 1) == own && own.scaled(by: 1.5) == own)
        let scaled = try #require(own.scaled(by: 0.51))
        #expect(scaled.size == PixelSize(width: Int((Double(w) * 0.51).rounded()), height: Int((Double(h) * 0.51).rounded())))
        #expect(own.scaled(by: 0.001) == nil)
        let attempt = try animation.gifAttempt(scale: 0.51, GIFSettings(paletteBits: 8))
        #expect((attempt.width, attempt.height) == (scaled.size.width, scaled.size.height))
        #expect(try GIFReader.read(try #require(attempt.attempt.data)).width == scaled.size.width)
    }
}
