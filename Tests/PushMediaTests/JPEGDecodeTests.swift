import CResample
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// A still JPEG decoded by libjpeg directly and reduced as its rows come (`pm_jpeg_decode_reduced`):
/// down against libvips' decode of the same file with the same shrink, reduced here in double
/// with the same Lanczos3 taps (CResample, tested on its own; libvips' own reducev places its
/// kernel to 1/64 of a pixel, so it is no exact reference), and across against pm_reduce_width.
@Suite("JPEG decoded by libjpeg, reduced down as it is decoded")
struct JPEGDecodeTests {
    static let farFuture = Deadline.now + .seconds(3600)

    /// A seeded noisy picture (smooth gradients under noise, so every row differs), saved as a
    /// JPEG of `width`×`height` with `bands` (1 or 3).
    static func noisyJPEG(width: Int, height: Int, bands: Int, seed: UInt64) throws -> URL {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 57)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                pixels[at] = UInt8((x * 255) / max(1, width - 1) / 2) &+ next()
                pixels[at + 1] = UInt8((y * 255) / max(1, height - 1) / 2) &+ next() / 2
                pixels[at + 2] = next()
            }
        }
        var image = try Vips.Image.fromRGB(pixels, width: width, height: height)
        if bands == 1 { image = try image.colourspace(VIPS_INTERPRETATION_B_W) }
        let url = try Fixtures.temporaryFolder("noisy-\(width)x\(height)-\(bands)-\(seed)").appendingPathComponent("noisy.jpg")
        try image.jpegData(quality: 92).write(to: url)
        return url
    }

    /// Colour and grey pictures (width, height, bands) whose reductions are compared byte for byte.
    static let pictures = [(1001, 757, 3), (640, 480, 1), (333, 1201, 3)]

    /// Sizes a decode of `like`'s size is reduced to in those comparisons: both sides, one side
    /// kept, and a shrink of 16 (rounded up).
    static func reductions(of like: Vips.Image) -> [PixelSize] {
        [
            PixelSize(width: like.width * 3 / 5, height: like.height * 3 / 5), PixelSize(width: like.width / 3, height: like.height),
            PixelSize(width: like.width, height: like.height / 3), PixelSize(width: (like.width + 15) / 16, height: (like.height + 15) / 16),
        ]
    }

    /// Decodes `url` both ways at `shrink` down to `height` rows: the largest and mean absolute
    /// difference of our bytes from libvips' decode reduced here in double (rounded, clamped).
    static func compare(_ url: URL, shrink: Int, height: Int) throws -> (max: Int, mean: Double, ours: Vips.Image) {
        let like = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink))
        let ours = try #require(
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: url.path), like: like, shrink: shrink,
                to: PixelSize(width: like.width, height: height), until: farFuture))
        #expect(ours.width == like.width && ours.height == height && ours.bands == like.bands)
        let decoded = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink)).copyMemory()
        let source = try decoded.memoryBytes()
        let rowBytes = decoded.width * decoded.bands
        let bytes = try ours.memoryBytes()
        #expect(bytes.count == rowBytes * height && source.count == rowBytes * decoded.height)
        var weights = [Double](repeating: 0, count: Int(pm_resample_most_taps(PM_RESAMPLE_LANCZOS3, Int32(decoded.height), Int32(height))))
        var largest = 0
        var total = 0
        for y in 0..<height {
            var first: Int32 = 0
            let count = Int(pm_resample_taps(PM_RESAMPLE_LANCZOS3, Int32(decoded.height), Int32(height), Int32(y), &first, &weights))
            for x in 0..<rowBytes {
                var sum = 0.0
                for k in 0..<count { sum += weights[k] * Double(source[(Int(first) + k) * rowBytes + x]) }
                let exact = decoded.height == height ? Int(source[y * rowBytes + x]) : Int(min(255, max(0, sum.rounded())))
                let d = abs(exact - Int(bytes[y * rowBytes + x]))
                largest = max(largest, d)
                total += d
            }
        }
        return (largest, Double(total) / Double(max(1, bytes.count)), ours)
    }

    @Test(
        "down to any height, at every shrink, colour and grey: libvips' decode and Lanczos3 in double, within rounding",
        arguments: [(1001, 757, 3), (640, 480, 1), (333, 1201, 3), (96, 17, 3)])
    func matchesLibvipsInDouble(width: Int, height: Int, bands: Int) throws {
        try Vips.start()
        let url = try Self.noisyJPEG(width: width, height: height, bands: bands, seed: UInt64(width * 31 + height))
        for shrink in [1, 2, 4, 8] {
            // libvips' height at this shrink (libjpeg rounds up, libvips down).
            let decoded = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink)).height
            guard decoded >= 2 else { continue }
            for rows in Set([decoded, decoded * 3 / 4, decoded * 3 / 5, decoded / 3, max(1, (decoded + 15) / 16)]) where rows >= 1 {
                let (largest, mean, _) = try Self.compare(url, shrink: shrink, height: rows)
                #expect(largest <= 1, "\(width)x\(height)x\(bands) shrink \(shrink) to \(rows) rows: max \(largest)")
                #expect(mean < 0.02, "\(width)x\(height)x\(bands) shrink \(shrink) to \(rows) rows: mean \(mean)")
            }
        }
    }

    @Test(
        "across as each row comes: the bytes of pm_reduce_width over the rows reduced down; vector and plain loops alike",
        arguments: pictures)
    func acrossAsRowsCome(width: Int, height: Int, bands: Int) throws {
        try Vips.start()
        let url = try Self.noisyJPEG(width: width, height: height, bands: bands, seed: UInt64(width * 7 + height))
        for shrink in [1, 2] {
            let like = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink))
            for size in Self.reductions(of: like) {
                let down = try #require(
                    try Vips.Image.jpegReduced(
                        from: try Vips.Source(path: url.path), like: like, shrink: shrink,
                        to: PixelSize(width: like.width, height: size.height), until: Self.farFuture))
                let twoPasses = try down.reducedWidth(to: size.width)
                for vectorized in [true, false] {
                    let fused = try #require(
                        try Vips.Image.jpegReduced(
                            from: try Vips.Source(path: url.path), like: like, shrink: shrink, to: size, until: Self.farFuture,
                            vectorized: vectorized))
                    #expect(fused.width == size.width && fused.height == size.height)
                    #expect(try fused.memoryBytes() == twoPasses.memoryBytes(), "\(width)x\(height) shrink \(shrink) to \(size) vector \(vectorized)")
                }
            }
        }
    }

    @Test("the fixtures' photos as the still decode reads them; libvips' header fields come along")
    func fixtures() throws {
        try Vips.start()
        for (name, shrink, rows) in [
            ("photos/landscape.jpg", 1, 750), ("photos/portrait.jpg", 1, 1050), ("photos/panorama.jpg", 2, 200),
            ("photos/progressive.jpg", 1, 600), ("photos/rotated-exif6.jpg", 1, 400),
        ] {
            let (largest, mean, ours) = try Self.compare(Fixtures.url(name), shrink: shrink, height: rows)
            #expect(largest <= 1 && mean < 0.02, "\(name): max \(largest), mean \(mean)")
            if name.contains("exif6") { #expect(ours.int(field: "orientation") == 6) }
        }
    }

    @Test("CMYK is left to libvips; a truncated file and a past deadline are errors")
    func refusals() throws {
        try Vips.start()
        let cmyk = Fixtures.url("photos/cmyk.jpg")
        let like = try Vips.Image.header(from: try Vips.Source(path: cmyk.path))
        // Not plain 8-bit: the plan sends it to libvips' thumbnail, and the C refuses it.
        let header = DecodePath.Header(
            size: PixelSize(width: like.width, height: like.height), orientation: 1, isPlain8Bit: like.isPlain8BitSRGBOrGrey)
        #expect(!header.isPlain8Bit)
        #expect(DecodePath.still(header, format: .jpeg, target: header.size, colourManaged: false) == .thumbnail)
        #expect(throws: Vips.Error.self) {
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: cmyk.path), like: like, shrink: 1, to: PixelSize(width: like.width, height: like.height),
                until: Self.farFuture)
        }

        let truncated = Fixtures.url("broken/truncated.jpg")
        let truncatedHeader = try Vips.Image.header(from: try Vips.Source(path: truncated.path))
        #expect {
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: truncated.path), like: truncatedHeader, shrink: 1,
                to: PixelSize(width: truncatedHeader.width, height: truncatedHeader.height), until: Self.farFuture)
        } throws: { error in
            (error as? Vips.Error)?.message.contains("premature end of JPEG image") == true
        }

        // A progressive file is decoded whole before its first row: the progress hook stops it.
        let progressive = Fixtures.url("photos/progressive.jpg")
        let progressiveHeader = try Vips.Image.header(from: try Vips.Source(path: progressive.path))
        #expect(progressiveHeader.int(field: "jpeg-multiscan") == 1)
        #expect {
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: progressive.path), like: progressiveHeader, shrink: 1,
                to: PixelSize(width: 450, height: 350), until: .now - .seconds(1))
        } throws: { error in
            (error as? Vips.Error)?.message.contains("time ran out") == true
        }

        let photo = Fixtures.url("photos/landscape.jpg")
        let photoHeader = try Vips.Image.header(from: try Vips.Source(path: photo.path))
        #expect {
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: photo.path), like: photoHeader, shrink: 1, to: PixelSize(width: 800, height: 500),
                until: .now - .seconds(1))
        } throws: { error in
            (error as? Vips.Error)?.message.contains("time ran out") == true
        }
    }

    @Test("a file cut within its last rows fails, as in libvips, though no output row needs them")
    func cutNearTheEnd() throws {
        try Vips.start()
        // 484 rows at 1/8: libjpeg makes 61, libvips keeps 60; the cut falls in the last
        // 16-row band, which only the 61st row comes from.
        let whole = try Data(contentsOf: try Self.noisyJPEG(width: 640, height: 484, bands: 3, seed: 5))
        let url = try Fixtures.temporaryFolder().appendingPathComponent("cut.jpg")
        try whole.prefix(whole.count - 300).write(to: url)
        for shrink in [8, 1] {
            let like = try Vips.Image.header(from: try Vips.Source(path: url.path), shrink: Double(shrink))
            #expect {
                try Vips.Image.jpegReduced(
                    from: try Vips.Source(path: url.path), like: like, shrink: shrink,
                    to: PixelSize(width: like.width, height: like.height), until: Self.farFuture)
            } throws: { error in
                (error as? Vips.Error)?.message.contains("premature end of JPEG image") == true
            }
        }
    }

    @Test("a JPEG that is not what libvips' header says (another size, another colour space) is left to libvips")
    func mismatchedHeader() throws {
        try Vips.start()
        // The header of a colour file, the bytes of a grey one of the same size.
        let colour = try Self.noisyJPEG(width: 320, height: 240, bands: 3, seed: 11)
        let grey = try Self.noisyJPEG(width: 320, height: 240, bands: 1, seed: 11)
        let colourHeader = try Vips.Image.header(from: try Vips.Source(path: colour.path))
        #expect(colourHeader.bands == 3)
        #expect(
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: grey.path), like: colourHeader, shrink: 1, to: PixelSize(width: 160, height: 120),
                until: Self.farFuture) == nil)
        // One column wider than the header said, at shrink 1.
        let wider = try Self.noisyJPEG(width: 321, height: 240, bands: 3, seed: 11)
        #expect(
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: wider.path), like: colourHeader, shrink: 1, to: PixelSize(width: 160, height: 120),
                until: Self.farFuture) == nil)
        let photo = Fixtures.url("photos/landscape.jpg")
        let halved = try Vips.Image.header(from: try Vips.Source(path: photo.path), shrink: 2)
        #expect(
            try Vips.Image.jpegReduced(
                from: try Vips.Source(path: photo.path), like: halved, shrink: 1, to: PixelSize(width: 100, height: 100),
                until: Self.farFuture) == nil)
    }
}
