import CDeadline
import CReduce
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// A rect of decoded pixels reduced in place (`pm_reduce_area`, ``Vips/Image/reduced(_:to:until:vectorized:)``):
/// the JPEG path's two passes (tested against Lanczos3 in double in JPEGDecodeTests) on pixels
/// already in memory, so the same bytes as the JPEG path from the same decoded rows.
@Suite("A rect of decoded pixels reduced in place")
struct ReduceAreaTests {
    @Test(
        "the whole image: the bytes the JPEG path makes from the same decode, colour and grey, vector and plain loops alike",
        arguments: JPEGDecodeTests.pictures)
    func sameBytesAsTheJPEGPath(width: Int, height: Int, bands: Int) throws {
        try Vips.start()
        let url = try JPEGDecodeTests.noisyJPEG(width: width, height: height, bands: bands, seed: UInt64(width * 13 + height))
        for shrink in [1, 2] {
            let like = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink))
            let decoded = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink)).copyMemory()
            #expect(decoded.isInMemory && !like.isInMemory)
            for size in JPEGDecodeTests.reductions(of: like) {
                let jpegPath = try #require(
                    try Vips.Image.jpegReduced(
                        from: try Vips.Source(path: url.path), like: like, shrink: shrink, to: size, until: JPEGDecodeTests.farFuture))
                for vectorized in [true, false] {
                    let inPlace = try decoded.reduced(
                        PixelRect(x: 0, y: 0, width: decoded.width, height: decoded.height), to: size, vectorized: vectorized)
                    #expect(inPlace.width == size.width && inPlace.height == size.height && inPlace.bands == bands)
                    #expect(
                        try inPlace.memoryBytes() == jpegPath.memoryBytes(), "\(width)x\(height) shrink \(shrink) to \(size) vector \(vectorized)")
                }
            }
        }
    }

    @Test("a rect: the bytes of the same rect copied out first, at the image's edges too; the image's fields come along")
    func rectAsIfCopiedOut() throws {
        try Vips.start()
        let url = try JPEGDecodeTests.noisyJPEG(width: 900, height: 700, bands: 3, seed: 5)
        let decoded = try Vips.Image.decode(try Data(contentsOf: url)).copyMemory()
        #expect(decoded.isInMemory)
        for (rect, size) in [
            (PixelRect(x: 0, y: 0, width: 700, height: 700), PixelSize(width: 300, height: 300)),
            (PixelRect(x: 200, y: 50, width: 700, height: 350), PixelSize(width: 600, height: 300)),
            (PixelRect(x: 13, y: 411, width: 97, height: 289), PixelSize(width: 7, height: 19)),
            (PixelRect(x: 899, y: 0, width: 1, height: 700), PixelSize(width: 1, height: 44)),
            // The height kept (rows copied, then across) and the width kept (down only).
            (PixelRect(x: 13, y: 411, width: 97, height: 289), PixelSize(width: 50, height: 289)),
            (PixelRect(x: 13, y: 411, width: 97, height: 289), PixelSize(width: 97, height: 100)),
        ] {
            let copied = try decoded.extractArea(left: rect.x, top: rect.y, width: rect.width, height: rect.height).copyMemory()
            let expected = try copied.reduced(to: size)
            let inPlace = try decoded.reduced(rect, to: size)
            #expect(try inPlace.memoryBytes() == expected.memoryBytes(), "\(rect) to \(size)")
            #expect(inPlace.interpretation == decoded.interpretation && inPlace.bandFormat == decoded.bandFormat)
        }
    }

    @Test("pixels not in memory go through libvips' pipeline; bad rects and a past deadline are errors")
    func refusalsAndFallbacks() throws {
        try Vips.start()
        let url = try JPEGDecodeTests.noisyJPEG(width: 400, height: 300, bands: 3, seed: 9)
        let lazy = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: 1)
        #expect(!lazy.isInMemory)
        let fromPipeline = try lazy.reduced(to: PixelSize(width: 200, height: 150))
        #expect(fromPipeline.width == 200 && fromPipeline.height == 150 && fromPipeline.isInMemory)
        let decoded = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: 1).copyMemory()
        // libvips' 8-bit reducev places its kernel to 1/64 px and sums in its own fixed point: on this
        // noise the two are 0.36 levels apart on average, 4 at most.
        let inPlace = try decoded.reduced(to: PixelSize(width: 200, height: 150))
        let a = try fromPipeline.memoryBytes()
        let b = try inPlace.memoryBytes()
        let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
        #expect(
            differences.max() ?? 0 <= 6 && Double(differences.reduce(0, +)) / Double(differences.count) < 0.5,
            "largest \(differences.max() ?? 0), mean \(Double(differences.reduce(0, +)) / Double(differences.count))")
        // A rect of lazy pixels (an extract of bands, as a still with alpha is normalised) goes
        // through libvips' path too, reading the same rect.
        let lazyBands = try decoded.extractBands(0, count: 3)
        #expect(!lazyBands.isInMemory)
        for (rect, size) in [
            (PixelRect(x: 150, y: 40, width: 240, height: 200), PixelSize(width: 200, height: 120)),
            (PixelRect(x: 13, y: 111, width: 97, height: 189), PixelSize(width: 50, height: 60)),
        ] {
            let a = try lazyBands.reduced(rect, to: size).memoryBytes()
            let b = try decoded.reduced(rect, to: size).memoryBytes()
            let d = zip(a, b).map { abs(Int($0) - Int($1)) }
            #expect(d.max() ?? 0 <= 6 && Double(d.reduce(0, +)) / Double(d.count) < 0.5, "\(rect): largest \(d.max() ?? 0)")
        }
        let whole = PixelRect(x: 0, y: 0, width: 400, height: 300)
        // A deadline that has passed (1 ns after the call was made) stops it.
        var stopped: UnsafeMutablePointer<VipsImage>?
        #expect(
            pm_reduce_area(decoded.pointer, 0, 0, 400, 300, 200, 150, (Deadline.now + .nanoseconds(1)).native, 1, &stopped) == -1 && stopped == nil)
        #expect(Vips.takeError().contains("the time ran out"))
        #expect(throws: Vips.Error.self) { try decoded.reduced(whole, to: PixelSize(width: 200, height: 150), until: .now - .seconds(1)) }
        for (rect, size) in [
            (PixelRect(x: 1, y: 0, width: 400, height: 300), PixelSize(width: 10, height: 10)),
            (PixelRect(x: 0, y: -1, width: 10, height: 10), PixelSize(width: 5, height: 5)),
        ] {
            #expect(throws: Vips.Error.self, "\(rect)") { try decoded.reduced(rect, to: size) }
        }
    }

    @Test("a Deadline reaches C on the clock C reads: no instant between two of Swift's is outside them")
    func deadlineClock() {
        let before = Deadline.now
        let c = pm_monotonic_ns()
        let after = Deadline.now
        #expect(before.monotonicNanoseconds <= c && c <= after.monotonicNanoseconds)
        #expect((Deadline.now - .seconds(1)).native.monotonic_ns > 0, "a past deadline is never C's none (0)")
        #expect(Optional<Deadline>.none.native.monotonic_ns == 0)
    }
}
