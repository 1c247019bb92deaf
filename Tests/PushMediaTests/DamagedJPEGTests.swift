import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Damaged JPEGs: missing data fails, harmless warnings do not")
struct DamagedJPEGTests {
    /// A 160×100 JPEG from Pillow (a gradient; baseline or progressive, with an sRGB ICC profile
    /// or none) and what byte surgery makes of it: `header` sets the size its SOF gives,
    /// `extraneous` puts bytes before its EOI marker (as some cameras write), `keep` cuts the file
    /// to that share of its bytes.
    struct Damage: CustomTestStringConvertible, Sendable {
        var progressive = false
        var icc = false
        var header: PixelSize?
        var extraneous = 0
        var keep = 1.0

        var testDescription: String {
            var parts = [progressive ? "progressive" : "baseline", icc ? "ICC" : "untagged"]
            if let header { parts.append("header \(header.width)×\(header.height)") }
            if extraneous > 0 { parts.append("\(extraneous) bytes before EOI") }
            if keep < 1 { parts.append("cut to \(Int(keep * 100)) %") }
            return parts.joined(separator: ", ")
        }
    }

    static let script = """
        import io, struct, sys
        from PIL import Image, ImageCms
        out, progressive, icc, width, height, extraneous, keep = sys.argv[1:]
        im = Image.new("RGB", (160, 100))
        im.putdata([((x * 255) // 160, (y * 255) // 100, ((x + y) * 7) % 256) for y in range(100) for x in range(160)])
        options = {"quality": 90, "progressive": progressive == "1"}
        if icc == "1":
            options["icc_profile"] = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
        buffer = io.BytesIO()
        im.save(buffer, "JPEG", **options)
        data = buffer.getvalue()
        if width != "0":
            at = 2
            while data[at + 1] not in (0xC0, 0xC2):
                at += 2 + struct.unpack(">H", data[at + 2:at + 4])[0]
            data = data[:at + 5] + struct.pack(">HH", int(height), int(width)) + data[at + 9:]
        data = data[:-2] + b"\\0" * int(extraneous) + data[-2:]
        data = data[:int(len(data) * float(keep))]
        open(out, "wb").write(data)
        """

    /// The damaged JPEG, processed through the pipeline: the item and its output folder.
    static func process(_ damage: Damage, name: String = #function) throws -> (Item, URL) {
        let folder = try Fixtures.temporaryFolder(name)
        let input = folder.appendingPathComponent("damaged.jpg")
        // Debian's Python, which has Pillow (python3-pil), not a pyenv one first on PATH.
        let made = try CommandRunner.run(
            "/usr/bin/python3",
            [
                "-c", script, input.path, damage.progressive ? "1" : "0", damage.icc ? "1" : "0",
                "\(damage.header?.width ?? 0)", "\(damage.header?.height ?? 0)", "\(damage.extraneous)", "\(damage.keep)",
            ])
        try #require(made.status == 0, "python3-pil: \(made.error)")
        let out = folder.appendingPathComponent("out")
        let processor = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
        return (processor.process(InputFile(path: input.path, source: "damaged.jpg")), out)
    }

    static let eachPath = [(false, false), (true, false), (false, true), (true, true)]

    @Test(
        "a header of 7000×7000 over the data of 160×100 fails as corrupt_input, not grey thumbnails",
        arguments: eachPath)
    func headerLargerThanData(progressive: Bool, icc: Bool) throws {
        let (item, out) = try Self.process(
            Damage(progressive: progressive, icc: icc, header: PixelSize(width: 7000, height: 7000)))
        #expect(item.status == .failed)
        #expect(item.error?.code == .corruptInput && item.error?.code.isTransient == false)
        let message = try #require(item.error?.message)
        #expect(message.contains("100 % of its 7000×7000 pixels are missing"), "\(message)")
        #expect(message.contains("premature end of data segment"), "\(message)")
        #expect(item.attachments.isEmpty)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] == [], "a failed item writes nothing")
    }

    @Test("a header a few block rows taller than the data fails too (13 % missing)")
    func headerSlightlyTaller() throws {
        let (item, _) = try Self.process(Damage(header: PixelSize(width: 160, height: 116)))
        #expect(item.error?.code == .corruptInput)
        #expect(item.error?.message.contains("13 % of its 160×116 pixels are missing") == true, "\(item.error?.message ?? "")")
    }

    @Test("extraneous bytes before the EOI marker are harmless: ok, at the image's size", arguments: eachPath)
    func extraneousBytes(progressive: Bool, icc: Bool) throws {
        let (item, out) = try Self.process(Damage(progressive: progressive, icc: icc, extraneous: 7))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.probe?.width == 160 && item.probe?.height == 100)
        let thumbnail = try #require(item.attachment(.thumbnail))
        let expanded = try #require(item.attachment(.expanded))
        #expect(thumbnail.width == 100 && thumbnail.height == 100)
        #expect(expanded.width == 160 && expanded.height == 80)
        // Decoded pixels, not grey: the gradient runs from dark to light across the image.
        let image = try OutputInspection.image(expanded, in: out)
        let pixels = try image.memoryBytes()
        let red = { (x: Int) in (0..<image.height).map { Int(pixels[($0 * image.width + x) * image.bands]) }.reduce(0, +) / image.height }
        #expect(red(image.width - 1) - red(0) > 150, "red \(red(0)) on the left, \(red(image.width - 1)) on the right")
    }

    @Test(
        "a truncated JPEG fails as corrupt_input, as before: libjpeg's or libvips' words for the missing end",
        arguments: [
            (false, "cannot decode the jpeg image: premature end of JPEG image"),
            (true, "cannot decode the jpeg image: VipsJpeg: Premature end of input file"),
        ])
    func truncated(icc: Bool, message: String) throws {
        let (item, _) = try Self.process(Damage(icc: icc, keep: 0.6))
        #expect(item.status == .failed && item.error?.code == .corruptInput)
        #expect(item.error?.message == message)
    }

    @Test("the committed truncated JPEG keeps its code and message")
    func truncatedFixture() throws {
        let (item, _) = try ImagePipelineTests.process("broken/truncated.jpg")
        #expect(item.error?.code == .corruptInput)
        #expect(item.error?.message == "cannot decode the jpeg image: premature end of JPEG image")
    }

    @Test("the rule: a sliver of missing rows at the bottom is kept, more than 2 % is damage")
    func rule() {
        func damage(rows: Int, withData: Int) -> JPEGDamage {
            JPEGDamage(
                size: PixelSize(width: 4032, height: rows * 16), rows: rows, rowsWithData: withData, warnings: 1,
                firstWarning: "Corrupt JPEG data: premature end of data segment")
        }
        #expect(damage(rows: 189, withData: 189).problem == nil)
        #expect(damage(rows: 189, withData: 186).problem == nil, "3 of 189 block rows (1.6 %)")
        #expect(damage(rows: 189, withData: 185).problem?.contains("3 % of its 4032×3024 pixels are missing") == true)
        #expect(damage(rows: 8, withData: 7).problem != nil, "one of 8 rows is 12.5 %")
        let harmless = JPEGDamage(
            size: PixelSize(width: 160, height: 100), rows: 7, rowsWithData: 7, warnings: 1,
            firstWarning: "Corrupt JPEG data: 7 extraneous bytes before marker 0xd9")
        #expect(harmless.problem == nil)
    }
}
