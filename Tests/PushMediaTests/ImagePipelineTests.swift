import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Image pipeline on real files")
struct ImagePipelineTests {
    static let stillImages = [
        "photos/landscape.jpg", "photos/portrait.jpg", "photos/panorama.jpg", "photos/progressive.jpg",
        "photos/rotated-exif6.jpg", "photos/cmyk.jpg", "photos/gradient-16bit.png", "photos/scene.webp",
        "photos/scene.heic", "photos/scene.tif", "graphics/logo-alpha.png", "graphics/opaque-alpha.png",
        "graphics/tiny.png", "graphics/still.gif",
    ]

    /// Processes one fixture into a fresh folder.
    static func process(_ source: String, profile: Profile = .default, baseURL: String? = nil) throws -> (Item, URL) {
        let out = try Fixtures.temporaryFolder(source)
        let processor = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: out, baseURL: baseURL))
        return (processor.process(InputFile(path: Fixtures.url(source).path, source: source)), out)
    }

    @Test("every still image gives a square thumbnail and a 2:1 expanded image", arguments: stillImages)
    func variants(source: String) throws {
        let (item, out) = try Self.process(source)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .image)
        let probe = try #require(item.probe)
        let (w, h) = (try #require(probe.width), try #require(probe.height))
        let thumb = try #require(item.attachment(.thumbnail))
        let expanded = try #require(item.attachment(.expanded))

        #expect(thumb.width == min(300, w, h) && thumb.height == thumb.width)
        let ew = try #require(expanded.width)
        let eh = try #require(expanded.height)
        #expect(ew <= 1200 && eh <= 600 && ew <= w && eh <= h, "never upscaled")
        #expect(abs(Double(ew) / Double(eh) - 2) <= 2.0 / Double(eh), "\(ew)x\(eh) is not 2:1")
        #expect(thumb.options.thumbnailClippingRect == nil && !thumb.options.thumbnailHidden)
        #expect(try #require(expanded.options.thumbnailClippingRect).isValid)

        for attachment in [thumb, expanded] {
            let data = try Data(contentsOf: out.appendingPathComponent(attachment.file))
            // What the manifest says is what is on disk, and the name is the content hash.
            #expect(data.count == attachment.bytes)
            #expect(OutputInspection.sha256(data) == attachment.sha256)
            #expect(attachment.file.hasPrefix(String(attachment.sha256.prefix(16))))
            let image = try OutputInspection.image(attachment, in: out)
            #expect(image.width == attachment.width && image.height == attachment.height)
            #expect(image.bitDepth == 8)
            #expect(image.interpretationName == "srgb")
            switch attachment.fileExtension {
            case "jpg":
                #expect(image.bands == 3)
                #expect(attachment.typeHint == "public.jpeg" && attachment.mimeType == "image/jpeg")
            case "png":
                #expect(image.bands == 4, "PNG is only used for real alpha")
                #expect(attachment.typeHint == "public.png")
            default:
                Issue.record("unexpected output type \(attachment.fileExtension)")
            }
        }
    }

    @Test("EXIF orientation is applied: outputs are upright")
    func exifOrientation() throws {
        // Stored 600×400 sideways with orientation 6; displayed 400×600 with red above blue.
        let (item, out) = try Self.process("photos/rotated-exif6.jpg")
        let probe = try #require(item.probe)
        #expect(probe.width == 400 && probe.height == 600 && probe.orientation == 6)
        let thumb = try OutputInspection.image(try #require(item.attachment(.thumbnail)), in: out)
        let top = try thumb.pixel(x: thumb.width / 2, y: 5)
        let bottom = try thumb.pixel(x: thumb.width / 2, y: thumb.height - 5)
        #expect(top[0] > 150 && top[2] < 80, "top should be red, got \(top)")
        #expect(bottom[2] > 150 && bottom[0] < 80, "bottom should be blue, got \(bottom)")
        let expanded = try OutputInspection.image(try #require(item.attachment(.expanded)), in: out)
        #expect(expanded.width == 400 && expanded.height == 200)
    }

    @Test("outputs carry no metadata: no EXIF, GPS, camera, author, XMP or ICC", arguments: ["photos/rotated-exif6.jpg", "photos/landscape.jpg"])
    func metadataStripped(source: String) throws {
        let original = try Data(contentsOf: Fixtures.url(source))
        #expect(original.range(of: Data("FakeCam".utf8)) != nil, "the fixture should carry camera tags")
        let (item, out) = try Self.process(source)
        for attachment in item.attachments {
            let data = try Data(contentsOf: out.appendingPathComponent(attachment.file))
            for marker in ["Exif", "FakeCam", "Fixture Author", "http://ns.adobe.com/xap"] {
                #expect(data.range(of: Data(marker.utf8)) == nil, "\(marker) left in \(attachment.file)")
            }
            let fields = try OutputInspection.image(attachment, in: out).fieldNames
            #expect(!fields.contains { $0.hasPrefix("exif-") || $0 == "xmp-data" || $0 == "icc-profile-data" || $0 == "orientation" }, "\(fields)")
        }
    }

    @Test("CMYK is converted to sRGB with the right colours")
    func cmyk() throws {
        let (item, out) = try Self.process("photos/cmyk.jpg")
        #expect(item.probe?.colourSpace == "cmyk" && item.probe?.bands == 4)
        let expanded = try OutputInspection.image(try #require(item.attachment(.expanded)), in: out)
        #expect(expanded.bands == 3)
        // The fixture is red on the left half, blue on the right; the 2:1 crop keeps both.
        let left = try expanded.pixel(x: 5, y: expanded.height / 2)
        let right = try expanded.pixel(x: expanded.width - 5, y: expanded.height / 2)
        #expect(left[0] > 150 && left[2] < 110, "left should be red, got \(left)")
        #expect(right[2] > 120 && right[0] < 80, "right should be blue, got \(right)")
    }

    @Test("16-bit PNG becomes 8-bit JPEG")
    func sixteenBit() throws {
        let (item, out) = try Self.process("photos/gradient-16bit.png")
        #expect(item.probe?.bitDepth == 16)
        let thumb = try #require(item.attachment(.thumbnail))
        #expect(thumb.fileExtension == "jpg")
        #expect(try OutputInspection.image(thumb, in: out).bitDepth == 8)
    }

    @Test("real alpha stays PNG with transparent pixels; opaque alpha becomes JPEG")
    func alpha() throws {
        let (logo, out) = try Self.process("graphics/logo-alpha.png")
        let thumb = try #require(logo.attachment(.thumbnail))
        #expect(thumb.fileExtension == "png" && thumb.mimeType == "image/png")
        let image = try OutputInspection.image(thumb, in: out)
        #expect(try image.pixel(x: 0, y: 0)[3] == 0, "corner should be transparent")
        #expect(try image.pixel(x: image.width / 2, y: image.height / 2)[3] == 255)

        let (opaque, _) = try Self.process("graphics/opaque-alpha.png")
        #expect(opaque.probe?.hasAlpha == true)
        #expect(opaque.attachments.allSatisfy { $0.fileExtension == "jpg" })
    }

    @Test("process (libvips and the face model starting on a thread of their own as its jobs begin) writes what items processed alone write")
    func processMatchesItemsAlone() throws {
        let sources = ["photos/landscape.jpg", "photos/portrait.jpg", "photos/scene.heic", "graphics/logo-alpha.png"]
        let input = try Fixtures.temporaryFolder("prepared-input")
        let out = try Fixtures.temporaryFolder("prepared-out")
        try Fixtures.copy(sources, into: input)
        // A fresh process: its warm-up races its first items (--jobs 2).
        let result = try CommandRunner.run(CommandRunner.pushmedia, ["process", input.path, "--out", out.path, "--jobs", "2"])
        #expect(result.status == 0, "exit \(result.status): \(result.error.suffix(1000))")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let byName = Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.source, $0) })
        for source in sources {
            let alone = try Self.process(source).0
            let batched = try #require(byName[(source as NSString).lastPathComponent])
            #expect(batched.status == .ok)
            #expect(alone.attachments.map(\.sha256) == batched.attachments.map(\.sha256), "\(source)")
            #expect(alone.probe?.subject == batched.probe?.subject && alone.probe?.faces == batched.probe?.faces)
        }
    }

    @Test("small sources are never upscaled")
    func tiny() throws {
        let (item, _) = try Self.process("graphics/tiny.png")
        #expect(item.attachment(.thumbnail)?.width == 30)
        #expect(item.attachment(.expanded)?.width == 40 && item.attachment(.expanded)?.height == 20)
    }

    @Test(
        "a subject near the edge stays in the thumbnail and in the clipping rect",
        arguments: ["photos/panorama.jpg", "photos/landscape.jpg", "photos/portrait.jpg"])
    func subjectKept(source: String) throws {
        let (item, out) = try Self.process(source)
        let thumbAttachment = try #require(item.attachment(.thumbnail))
        let expandedAttachment = try #require(item.attachment(.expanded))
        let thumb = try OutputInspection.image(thumbAttachment, in: out)
        let expanded = try OutputInspection.image(expandedAttachment, in: out)
        let clip = try #require(expandedAttachment.options.thumbnailClippingRect)
        // The disc covers a good share of each crop; far less of the frame outside it.
        let inThumb = try OutputInspection.share(of: OutputInspection.subjectColour, in: thumb)
        let inClip = try OutputInspection.share(of: OutputInspection.subjectColour, in: expanded, unitRect: clip)
        #expect(inThumb > 0.03, "subject not in the thumbnail (\(inThumb))")
        #expect(inClip > 0.03, "subject not in the clipping rect (\(inClip))")
    }

    @Test(
        "the centre strategy centres; attention finds the subject; smart finds no face and is attention",
        arguments: [CropStrategy.centre, .attention, .entropy, .smart])
    func strategies(strategy: CropStrategy) throws {
        let (item, _) = try Self.process("photos/panorama.jpg", profile: Profile(crop: strategy))
        let subject = try #require(item.probe?.subject)
        let clip = try #require(item.attachment(.expanded)?.options.thumbnailClippingRect)
        switch strategy {
        case .centre:
            #expect(subject == UnitPoint(x: 0.5, y: 0.5))
            #expect(abs(clip.x - 0.25) < 0.01)
        case .attention, .smart:
            // The disc is drawn at x = 2900 of 3000.
            #expect(abs(subject.x - 2900.0 / 3000) < 0.05, "\(subject)")
            #expect(clip.x + clip.width == 1)
            #expect(item.probe?.subjectStrategy == .attention)
            #expect(item.probe?.faces == (strategy == .smart ? [] : nil))
        case .entropy:
            #expect((0...1).contains(subject.x) && (0...1).contains(subject.y))
        }
    }

    @Test(
        "broken inputs fail with stable codes",
        arguments: [
            ("broken/empty.jpg", ErrorCode.emptyInput), ("broken/not-an-image.jpg", .unsupportedType),
            ("broken/truncated.jpg", .corruptInput), ("broken/truncated.png", .corruptInput),
        ])
    func broken(source: String, code: ErrorCode) throws {
        let (item, out) = try Self.process(source)
        #expect(item.status == .failed)
        #expect(item.error?.code == code)
        #expect(item.error?.message.isEmpty == false)
        #expect(item.attachments.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty, "a failed item writes nothing")
    }

    @Test("a broken symbolic link is a missing input (not retried), not a crash")
    func danglingLink() throws {
        let folder = try Fixtures.temporaryFolder()
        let link = folder.appendingPathComponent("gone.jpg")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/nonexistent/gone.jpg")
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: link.path, source: "gone.jpg"))
        #expect(item.error?.code == .missingInput && item.error?.code.isTransient == false)
        #expect(item.error?.message.contains("broken symbolic link") == true)
    }

    @Test("a named pipe fails at once as not a regular file (opening it would wait for a writer)")
    func namedPipe() throws {
        let folder = try Fixtures.temporaryFolder()
        let pipe = folder.appendingPathComponent("live.jpg")
        #expect(mkfifo(pipe.path, 0o644) == 0)
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: pipe.path, source: "live.jpg"))
        #expect(item.status == .failed && item.error?.code == .unsupportedType)
        #expect(item.error?.message == "live.jpg is not a regular file but a named pipe")
    }

    @Test("the type comes from the bytes: a PNG named .jpg is processed as PNG")
    func misnamed() throws {
        let folder = try Fixtures.temporaryFolder()
        let renamed = folder.appendingPathComponent("logo.jpg")
        try FileManager.default.copyItem(at: Fixtures.url("graphics/logo-alpha.png"), to: renamed)
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: renamed.path, source: "logo.jpg"))
        #expect(item.probe?.format == "png")
        #expect(item.attachment(.thumbnail)?.fileExtension == "png")
    }

    @Test("attachment URLs join the base URL and the file name")
    func urls() throws {
        let (item, _) = try Self.process("photos/landscape.jpg", baseURL: "https://cdn.example.com/campaign/")
        for attachment in item.attachments {
            #expect(attachment.url == "https://cdn.example.com/campaign/\(attachment.file)")
        }
    }
}
