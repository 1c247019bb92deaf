import CReduce
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// The still decode's two-pass resize (libvips' reducev while decoding, then `pm_reduce_width`
/// in memory) against `vips_thumbnail_image`, and the horizontal reducer's own properties.
@Suite("Still decode and the horizontal reduce")
struct StillDecodeTests {
    /// Mean and largest absolute difference of two images' bytes (same size and bands), and the
    /// share of bytes that differ by more than 8.
    static func difference(_ a: Vips.Image, _ b: Vips.Image) throws -> (mean: Double, max: Int, over8: Double) {
        let x = try a.memoryBytes()
        let y = try b.memoryBytes()
        #expect(x.count == y.count)
        var total = 0
        var largest = 0
        var over = 0
        for (p, q) in zip(x, y) {
            let d = abs(Int(p) - Int(q))
            total += d
            largest = max(largest, d)
            if d > 8 { over += 1 }
        }
        let count = Double(max(1, x.count))
        return (Double(total) / count, largest, Double(over) / count)
    }

    static let farFuture = Deadline.now + .seconds(3600)

    /// A grey (1-band) JPEG made from a fixture, so the plain path's grey case has a real file.
    static func greyJPEG() throws -> URL {
        let colour = try Vips.Image.decode(try Data(contentsOf: Fixtures.url("photos/landscape.jpg")))
        let url = try Fixtures.temporaryFolder().appendingPathComponent("grey.jpg")
        try colour.colourspace(VIPS_INTERPRETATION_B_W).jpegData(quality: 90).write(to: url)
        return url
    }

    @Test(
        "a still decodes to the size, bands and pixels vips_thumbnail_image gives, upright",
        arguments: [
            "photos/landscape.jpg", "photos/panorama.jpg", "photos/portrait.jpg", "photos/progressive.jpg",
            "photos/rotated-exif6.jpg", "photos/cmyk.jpg", "photos/scene.webp", "grey",
        ])
    func stillMatchesThumbnail(_ name: String) throws {
        try Vips.start()
        let url = name == "grey" ? try Self.greyJPEG() : Fixtures.url(name)
        let header = try Vips.Image.header(from: try Vips.Source(path: url.path))
        let sideways = (5...8).contains(header.int(field: "orientation") ?? 1)
        let upright = sideways ? PixelSize(width: header.height, height: header.width) : PixelSize(width: header.width, height: header.height)
        let colourManaged = header.bands == 4 && header.interpretation == VIPS_INTERPRETATION_CMYK
        let plan = ImagePlan(source: upright, profile: Profile())
        for target in [
            plan.decode, PixelSize(width: upright.width / 2, height: upright.height / 2), PixelSize(width: upright.width / 3, height: 10_000),
        ] {
            let still = try Vips.Image.still(
                from: try Vips.Source(path: url.path), width: target.width, height: target.height, colourManaged: colourManaged,
                until: Self.farFuture)
            let reference = try Vips.Image.thumbnail(
                from: try Vips.Source(path: url.path), width: target.width, height: target.height, colourManaged: colourManaged
            ).copyMemory()
            #expect(still.width == reference.width && still.height == reference.height && still.bands == reference.bands, "\(name) \(target)")
            #expect(still.width <= target.width && still.height <= target.height, "\(name) \(target)")
            #expect(still.int(field: "orientation") ?? 1 == 1, "\(name): upright, the tag dropped")
            // vips_thumbnail_image scales both sides by one factor and rounds the size, so its last
            // column or row is a partial pixel; the two-pass resize maps the source onto the whole
            // rounded size. On sharp edges that sub-pixel shift shows, so: a small mean, few outliers.
            let (mean, _, over8) = try Self.difference(still, reference)
            #expect(mean < 0.5 && over8 < 0.005, "\(name) \(target): mean \(mean), share over 8 \(over8)")
        }
    }

    @Test("the vector and plain loops give the same bytes at every width, for colour and grey")
    func vectorMatchesPlain() throws {
        for (sourceWidth, widths) in [(1999, [1998, 1200, 1000, 777, 301, 125]), (23, [22, 7, 2]), (16, [1])] {
            let colour = try Vips.Image.noise(width: sourceWidth, height: 37).copyMemory()
            let grey = try colour.colourspace(VIPS_INTERPRETATION_B_W).copyMemory()
            for image in [colour, grey] {
                for width in widths {
                    let vector = try image.reducedWidth(to: width)
                    let plain = try image.reducedWidth(to: width, vectorized: false)
                    #expect(vector.width == width && vector.height == 37 && vector.bands == image.bands)
                    #expect(try vector.memoryBytes() == plain.memoryBytes(), "\(image.bands) bands, \(sourceWidth) to \(width)")
                }
            }
        }
    }

    @Test("it is libvips' Lanczos3: within rounding of reduceh on noise, and a flat image stays flat")
    func sameFilterAsLibvips() throws {
        let noise = try Vips.Image.noise(width: 2000, height: 60).copyMemory()
        for width in [1200, 700, 250] {
            let ours = try noise.reducedWidth(to: width)
            let libvips = try noise.resize(horizontal: Double(width) / 2000, vertical: 1).copyMemory()
            #expect(libvips.width == width)
            // Columns near the edges differ (libvips extends the edge pixel, this renormalises).
            let inner = { (image: Vips.Image) in try image.extractArea(left: 8, top: 0, width: width - 16, height: 60).copyMemory() }
            // Fixed-point rounding only: every inner byte within one level.
            let (mean, largest, _) = try Self.difference(inner(ours), inner(libvips))
            #expect(mean < 0.25 && largest <= 1, "to \(width): mean \(mean), max \(largest)")
        }
        let flat = try Vips.Image.noise(width: 999, height: 5, sigma: 0).copyMemory()
        let value = try flat.pixel(x: 0, y: 0)
        let reduced = try flat.reducedWidth(to: 333)
        for x in [0, 1, 166, 331, 332] { #expect(try reduced.pixel(x: x, y: 2) == value) }
    }

    @Test("shrinks up to 16 match libvips on stripes; beyond, reducedWidth refuses and reduced(to:) uses libvips")
    func largeShrinks() throws {
        // Vertical stripes 7 pixels wide: the hardest input for weights that round badly.
        let columns = (0..<4800).map { UInt8(($0 / 7) % 2 == 0 ? 0 : 255) }
        let rows = Array((0..<4).map { _ in columns.flatMap { [$0, $0, $0] } }.joined())
        let image = try Vips.Image.fromRGB(rows, width: 4800, height: 4)
        let ours = try image.reducedWidth(to: 300)
        let libvips = try image.resize(horizontal: 300.0 / 4800, vertical: 1).copyMemory()
        let inner = { (x: Vips.Image) in try x.extractArea(left: 8, top: 0, width: 284, height: 4).copyMemory() }
        let (mean, largest, _) = try Self.difference(inner(ours), inner(libvips))
        #expect(mean < 0.5 && largest <= 2, "mean \(mean), max \(largest)")
        #expect(throws: Vips.Error.self) { try image.reducedWidth(to: 299) }
        // The plan's limit is the C's: past it the plan picks libvips' resize.
        #expect(DecodePath.mostReduction == Int(PM_REDUCE_MOST))
        #expect(
            DecodePath.reduction(eightBit: true, inMemory: true, from: PixelSize(width: 4800, height: 4), to: PixelSize(width: 300, height: 4))
                == .inPlace)
        #expect(
            DecodePath.reduction(eightBit: true, inMemory: true, from: PixelSize(width: 4800, height: 4), to: PixelSize(width: 299, height: 4))
                == .resize)
        #expect(
            DecodePath.reduction(eightBit: true, inMemory: false, from: PixelSize(width: 480, height: 4), to: PixelSize(width: 300, height: 4))
                == .downThenAcross)
        #expect(
            DecodePath.reduction(eightBit: false, inMemory: true, from: PixelSize(width: 480, height: 4), to: PixelSize(width: 300, height: 4))
                == .resize)
        let small = try image.reduced(to: PixelSize(width: 40, height: 4))
        #expect(small.width == 40 && small.height == 4)
        // A flat grey stays that grey through libvips' box pre-shrink too.
        let flat = try Vips.Image.noise(width: 60_000, height: 2, sigma: 0).copyMemory()
        #expect(try flat.reduced(to: PixelSize(width: 3, height: 2)).pixel(x: 2, y: 1) == flat.pixel(x: 0, y: 0))
    }

    @Test("bad arguments are errors, not crashes")
    func refusals() throws {
        let image = try Vips.Image.noise(width: 100, height: 10).copyMemory()
        #expect(throws: Vips.Error.self) { try image.reducedWidth(to: 0) }
        #expect(throws: Vips.Error.self) { try image.reducedWidth(to: 101) }
        let sixteen = try image.cast(VIPS_FORMAT_USHORT).copyMemory()
        #expect(throws: Vips.Error.self) { try sixteen.reducedWidth(to: 50) }
        #expect(throws: Vips.Error.self) { try image.reducedHeight(to: 11) }
    }
}
