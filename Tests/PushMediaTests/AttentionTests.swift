import CVips
import CVipsShims
import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// ``Attention`` (libvips' attention scored in Swift on libvips' 32×32 map) against
/// `vips_smartcrop` itself, and the pure scoring's own properties.
@Suite("Attention")
struct AttentionTests {
    /// libvips' answer for a crop of half the image, as `SubjectFinder` asks it.
    static func libvipsCentre(_ image: Vips.Image) throws -> [Int] {
        let result = try image.smartcrop(width: max(1, image.width / 2), height: max(1, image.height / 2), interesting: .attention)
        return [result.attentionX, result.attentionY]
    }

    /// ``Vips/Image/attentionCentre(crop:)`` as `[x, y]`, nil when it leaves the image to libvips.
    static func ownCentre(_ image: Vips.Image) throws -> [Int]? {
        try image.attentionCentre(crop: PixelSize(width: max(1, image.width / 2), height: max(1, image.height / 2))).map { [$0.x, $0.y] }
    }

    /// ``Attention/peak(pixels:width:height:bands:sigma:)`` as `[x, y]` (nil: a tie, left to libvips).
    static func peak(_ pixels: [UInt8], side: Int, bands: Int) -> [Int]? {
        let cell = pixels.withUnsafeBufferPointer { Attention.peak(pixels: $0, width: side, height: side, bands: bands, sigma: 2.26) }
        return cell.map { [$0.x, $0.y] }
    }

    /// What `SubjectFinder` uses: the Swift answer, or libvips' when it leaves a tie to it.
    static func finalCentre(_ image: Vips.Image) throws -> [Int] {
        try ownCentre(image) ?? libvipsCentre(image)
    }

    /// A seeded picture: a few soft discs of random colour on a random ground, optionally with
    /// per-pixel noise, so the map has several competing peaks.
    static func picture(width: Int, height: Int, seed: UInt64, noise: Int) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let ground = (0..<3).map { _ in Double(Int.random(in: 0...255, using: &random)) }
        let discs = (0..<Int.random(in: 1...5, using: &random)).map { _ in
            (
                x: Double.random(in: 0...Double(width), using: &random), y: Double.random(in: 0...Double(height), using: &random),
                r: Double.random(in: 2...Double(max(3, min(width, height) / 2)), using: &random),
                ink: (0..<3).map { _ in Double(Int.random(in: 0...255, using: &random)) }
            )
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var colour = ground
                for disc in discs {
                    let distance = ((Double(x) - disc.x) * (Double(x) - disc.x) + (Double(y) - disc.y) * (Double(y) - disc.y)).squareRoot()
                    let cover = max(0, min(1, (disc.r - distance) / 3))
                    for band in 0..<3 { colour[band] = colour[band] * (1 - cover) + disc.ink[band] * cover }
                }
                for band in 0..<3 {
                    let jitter = noise > 0 ? Int.random(in: -noise...noise, using: &random) : 0
                    pixels[(y * width + x) * 3 + band] = UInt8(max(0, min(255, Int(colour[band]) + jitter)))
                }
            }
        }
        return pixels
    }

    @Test("every fixture still, as the subject search sees it: the same centre as vips_smartcrop")
    func fixturesMatchLibvips() throws {
        try Vips.start()
        var compared = 0
        for name in try Fixtures.allSources() {
            let url = Fixtures.url(name)
            guard let source = try? Vips.Source(path: url.path),
                let proxy = try? Vips.Image.thumbnail(from: source, width: 256, height: 256, colourManaged: true).copyMemory()
            else { continue }
            for image in [proxy, try? proxy.bands == 3 ? proxy.colourspace(VIPS_INTERPRETATION_B_W).copyMemory() : nil] {
                guard let image, image.bandFormat == VIPS_FORMAT_UCHAR,
                    (image.bands == 3 && image.interpretation == VIPS_INTERPRETATION_sRGB) || image.bands == 1
                else { continue }
                let own = try Self.ownCentre(image)
                let theirs = try Self.libvipsCentre(image)
                #expect(own == nil || own == theirs, "\(name) (\(image.bands) bands): \(own ?? []) against libvips' \(theirs)")
                if own != nil { compared += 1 }
            }
        }
        // The synthetic gradients (cmyk, 16-bit, EXIF 6) and flat graphics tie along a row or
        // column and are left to libvips; the photos are decided here.
        #expect(compared >= 12, "only \(compared) fixture images were decided without libvips")
    }

    @Test(
        "seeded pictures of many sizes, smooth and noisy, colour and grey: the same centre as vips_smartcrop",
        arguments: [(256, 192), (192, 256), (256, 43), (256, 171), (255, 255), (100, 37), (31, 17), (8, 5), (1, 1), (640, 480)])
    func seededPicturesMatchLibvips(_ width: Int, _ height: Int) throws {
        try Vips.start()
        var decided = 0
        for seed in UInt64(1)...12 {
            let pixels = Self.picture(
                width: width, height: height, seed: seed &* 7919 &+ UInt64(width * 1000 + height), noise: seed % 3 == 0 ? 40 : 0)
            let colour = try Vips.Image.fromRGB(pixels, width: width, height: height)
            for image in [colour, try colour.colourspace(VIPS_INTERPRETATION_B_W).copyMemory()] {
                let own = try Self.ownCentre(image)
                let theirs = try Self.libvipsCentre(image)
                #expect(own == nil || own == theirs, "\(width)×\(height) seed \(seed), \(image.bands) bands: \(own ?? []) against libvips' \(theirs)")
                if own != nil { decided += 1 }
            }
        }
        // Ties are rare on pictures like these: most cells are decided here, not by libvips.
        #expect(width * height < 64 || decided >= 20, "only \(decided) of 24 decided without libvips")
    }

    @Test("images libvips scores otherwise (alpha, 16-bit) are left to it")
    func otherImagesAreLeftToLibvips() throws {
        try Vips.start()
        let colour = try Vips.Image.fromRGB(Self.picture(width: 64, height: 48, seed: 5, noise: 0), width: 64, height: 48)
        #expect(try Self.ownCentre(colour) != nil)
        let withAlpha = try Vips.Image.decode(try Data(contentsOf: Fixtures.url("graphics/logo-alpha.png")))
        #expect(withAlpha.bands == 4)
        #expect(try Self.ownCentre(withAlpha) == nil)
        #expect(try Self.ownCentre(try colour.cast(VIPS_FORMAT_USHORT)) == nil)
    }

    @Test("libvips' Gaussian masks and the crop's sigma")
    func maskAndSigma() {
        // vips_gaussmat(sigma, 0.2, integer): 12 20 12 for sigma 1 (the face proxy's soften);
        // 4 8 14 18 20 18 14 8 4 for a crop of half the image.
        let soften: [Double] = [12, 20, 12]
        #expect(Attention.blurMask(sigma: 1) == soften)
        let half = Attention.sigma(crop: PixelSize(width: 128, height: 96), in: PixelSize(width: 256, height: 192))
        #expect(abs(half - 512.0.squareRoot() / 10) < 1e-12)
        let taps: [Double] = [4, 8, 14, 18, 20, 18, 14, 8, 4]
        #expect(Attention.blurMask(sigma: half) == taps)
        #expect(Attention.sigma(crop: PixelSize(width: 1, height: 1), in: PixelSize(width: 256, height: 256)) == 1)
        for sigma in stride(from: 1.0, through: 6, by: 0.25) {
            let mask = Attention.blurMask(sigma: sigma)
            let mirrored = Array(mask.reversed())
            #expect(mask.count % 2 == 1)
            #expect(mask[mask.count / 2] == 20 && mask.allSatisfy { $0 >= 4 && $0 <= 20 && $0 == $0.rounded() })
            #expect(mask == mirrored)
        }
    }

    @Test("a flat map is a tie left to libvips; a lone saturated or skin-toned cell is the peak")
    func pureScoring() {
        let side = 32
        var grey = [UInt8](repeating: 128, count: side * side * 3)
        #expect(Self.peak(grey, side: side, bands: 3) == nil)
        for (x, y, ink) in [(20, 7, [230, 30, 40] as [UInt8]), (3, 28, [224, 172, 150]), (31, 0, [40, 200, 60])] {
            grey = [UInt8](repeating: 128, count: side * side * 3)
            for band in 0..<3 { grey[(y * side + x) * 3 + band] = ink[band] }
            let peak = Self.peak(grey, side: side, bands: 3)
            #expect(peak == [x, y], "ink \(ink) at (\(x), \(y)) peaked at \(peak)")
        }
        // Dark cells (Y ≤ 5) count edges only: an all-black grey map is a tie too.
        let black = [UInt8](repeating: 0, count: side * side)
        #expect(Self.peak(black, side: side, bands: 1) == nil)
    }

    /// A centred disc (or two mirrored ones) on a flat ground, or a checkerboard: pictures whose
    /// mirror cells score the same in libvips.
    static func symmetric(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let ground = (0..<3).map { _ in Double(Int.random(in: 0...255, using: &random)) }
        let ink = (0..<3).map { _ in Double(Int.random(in: 0...255, using: &random)) }
        let kind = seed % 3
        let radius = Double(min(width, height)) * Double.random(in: 0.1...0.4, using: &random)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let dy = Double(y) + 0.5 - Double(height) / 2
                var dx = Double(x) + 0.5 - Double(width) / 2
                let cover: Double
                switch kind {
                case 0: cover = max(0, min(1, (radius - (dx * dx + dy * dy).squareRoot()) / 3))
                case 1:
                    dx = abs(dx) - Double(width) / 4
                    cover = max(0, min(1, (radius / 2 - (dx * dx + dy * dy).squareRoot()) / 3))
                default:
                    let period = 1 + Int(seed % 16)
                    cover = (x / period + y / period) % 2 == 0 ? 1 : 0
                }
                for band in 0..<3 { pixels[(y * width + x) * 3 + band] = UInt8(ground[band] * (1 - cover) + ink[band] * cover) }
            }
        }
        return pixels
    }

    @Test(
        "symmetric pictures (mirror cells tie in libvips): the cell SubjectFinder takes is libvips' first one",
        arguments: [(256, 256), (256, 192), (200, 100), (255, 255), (64, 64), (32, 32), (128, 40), (100, 60), (31, 17)])
    func symmetricPicturesMatchLibvips(_ width: Int, _ height: Int) throws {
        try Vips.start()
        for seed in UInt64(1)...9 {
            let colour = try Vips.Image.fromRGB(Self.symmetric(width: width, height: height, seed: seed), width: width, height: height)
            for image in [colour, try colour.colourspace(VIPS_INTERPRETATION_B_W).copyMemory()] {
                let theirs = try Self.libvipsCentre(image)
                #expect(try Self.finalCentre(image) == theirs, "\(width)×\(height) seed \(seed), \(image.bands) bands")
            }
        }
    }
}
