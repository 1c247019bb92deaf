import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// The Android image on real files, through the item processor `process` runs: its format,
/// frames, size, aspect and bytes, read back from disk, and the subject in its centre square.
@Suite("Android image on real files")
struct AndroidOutputTests {
    typealias Role = PushMediaModel.Attachment.Role

    /// The Android attachment of `item`, read back: checked against what the manifest says and
    /// against Firebase's rules (one still, at most 1 MiB), within the budget.
    static func android(_ item: Item, in out: URL, source: PixelSize, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> (PushMediaModel.Attachment, Vips.Image)
    {
        #expect(item.status == .ok, "\(item.error?.message ?? "")", sourceLocation: sourceLocation)
        let android = try #require(item.attachment(.android), "no android attachment", sourceLocation: sourceLocation)
        #expect(android.identifier == "android" && android.file.hasSuffix("-android.\(android.fileExtension)"), sourceLocation: sourceLocation)
        let data = try Data(contentsOf: out.appendingPathComponent(android.file))
        #expect(data.count == android.bytes && OutputInspection.sha256(data) == android.sha256, sourceLocation: sourceLocation)
        #expect(android.bytes <= 1_048_576 && android.bytes <= (android.budget ?? 0), sourceLocation: sourceLocation)
        #expect(android.budget == 200_000, sourceLocation: sourceLocation)
        #expect(android.frames == nil, "one still", sourceLocation: sourceLocation)
        #expect(android.subjectInCentreSquare != nil && android.sourceRect != nil, sourceLocation: sourceLocation)
        let image = try OutputInspection.image(android, in: out)
        #expect(image.width == android.width && image.height == android.height, sourceLocation: sourceLocation)
        // Never upscaled, at most 1024 wide, 2:1 (within a pixel of height).
        #expect(image.width <= min(1024, source.width) && image.height <= source.height, sourceLocation: sourceLocation)
        if image.height >= 2 {
            #expect(
                abs(Double(image.width) / Double(image.height) - 2) <= 2.0 / Double(image.height), "\(image.width)×\(image.height)",
                sourceLocation: sourceLocation)
        }
        // Not an iOS attachment: the notification's delivery leaves it out.
        let iOSBytes = item.attachments.filter { $0.role != .android }.reduce(0) { $0 + $1.bytes }
        #expect(item.delivery?.bytes == iOSBytes, sourceLocation: sourceLocation)
        return (android, image)
    }

    static func jpegOpaque(_ attachment: PushMediaModel.Attachment, _ image: Vips.Image, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            attachment.fileExtension == "jpg" && attachment.mimeType == "image/jpeg" && attachment.typeHint == "public.jpeg",
            sourceLocation: sourceLocation)
        #expect(image.bands == 3, sourceLocation: sourceLocation)
    }

    /// A flat grey picture `width`×`height` with a red square of `side` centred at (`x`, `y`), as a JPEG.
    static func subjectPicture(_ name: String, width: Int, height: Int, x: Int, y: Int, side: Int, in folder: URL) throws -> URL {
        try MediaFactory.make(
            name, in: folder,
            [
                "-f", "lavfi", "-i",
                "color=c=0x808080:s=\(width)x\(height),drawbox=x=\(x - side / 2):y=\(y - side / 2):w=\(side):h=\(side):color=0xe02020:t=fill",
                "-frames:v", "1", "-q:v", "2",
            ])
    }

    static let red: [Double] = [224, 32, 32]

    @Test("a photo and a portrait: a 2:1 JPEG, 1024 wide or the source's width, within 200 KB")
    func photoAndPortrait() throws {
        for (source, size, width) in [
            ("photos/landscape.jpg", PixelSize(width: 1600, height: 1000), 1024), ("photos/portrait.jpg", PixelSize(width: 800, height: 1400), 800),
        ] {
            let (item, out) = try ImagePipelineTests.process(source)
            let (android, image) = try Self.android(item, in: out, source: size)
            Self.jpegOpaque(android, image)
            // Narrower than the source allows only to put the subject in the centre square, and never below minWidth.
            #expect(image.width == width || (android.subjectInCentreSquare == true && image.width >= 600), "\(source): \(image.width)")
        }
    }

    @Test("an 8000×1000 panorama with its subject near the left edge: the window shrinks toward it, and the centre square holds it")
    func panorama() throws {
        let folder = try Fixtures.temporaryFolder()
        // Decoded at 4800×600 (the expanded image's 1200 from a 2000-wide window): the largest 2:1
        // window is 1200×600, its centre square 600 wide. The red subject spans 650…950 (390…570
        // decoded); attention puts the point a little left of its centre, and the region around
        // the point (a quarter of the height) lies in the square only for windows under ~1000 wide.
        let input = try Self.subjectPicture("panorama.jpg", width: 8000, height: 1000, x: 800, y: 500, side: 300, in: folder)
        var profile = Profile.default
        profile.crop = .attention
        let out = folder.appendingPathComponent("out")
        let item = MediaPipelineTests.process(input, profile: profile, out: out)
        let (android, image) = try Self.android(item, in: out, source: PixelSize(width: 8000, height: 1000))
        Self.jpegOpaque(android, image)
        #expect(android.subjectInCentreSquare == true)
        #expect(image.width >= 600 && image.width < 1024, "\(image.width)×\(image.height): shrunk toward the subject, not below minWidth")
        // Every red pixel of the image lies in its centre square (what Android shows collapsed).
        let square = (low: (image.width - image.height) / 2, high: (image.width + image.height) / 2)
        var red = 0
        var outside = 0
        for y in stride(from: 0, to: image.height, by: 5) {
            for x in stride(from: 0, to: image.width, by: 5) {
                let p = try image.pixel(x: x, y: y)
                guard p[0] > 170 && p[1] < 90 && p[2] < 90 else { continue }
                red += 1
                if x < square.low || x >= square.high { outside += 1 }
            }
        }
        #expect(red > 50 && outside == 0, "\(red) red samples, \(outside) outside the centre square")
        // The expanded image (iOS) is not shrunk: the same decode gave both.
        #expect(item.attachment(.expanded)?.width == 1200)
        // With a minimum width the subject cannot reach, the largest window, and the manifest says so.
        profile.android.minWidth = 1000
        let wide = MediaPipelineTests.process(input, profile: profile, out: folder.appendingPathComponent("wide"))
        let (wideAndroid, wideImage) = try Self.android(wide, in: folder.appendingPathComponent("wide"), source: PixelSize(width: 8000, height: 1000))
        #expect(wideAndroid.subjectInCentreSquare == false)
        #expect(wideImage.width == 1024 && wideImage.height == 512)
        #expect(wide.warnings.contains { $0.hasPrefix("android: the subject is not in the centre square") }, "\(wide.warnings)")
    }

    @Test("an animated GIF whose first frames are black: the Android image is a still JPEG of the representative frame")
    func animation() throws {
        let (item, out) = try ImagePipelineTests.process("graphics/animated.gif")
        let (android, image) = try Self.android(item, in: out, source: PixelSize(width: 320, height: 200))
        Self.jpegOpaque(android, image)
        #expect(image.width == 320 && image.height == 160)
        // The GIF's first frame is black (what BitmapFactory would show of the GIF); the Android
        // image is the frame the iOS still thumbnail shows.
        #expect(try image.deviation() > 10, "the Android image is blank")
        #expect(item.attachment(.expanded)?.options.thumbnailTime == 4)
    }

    @Test("a movie with a black first second: the Android image is the poster frame, not black")
    func movie() throws {
        let out = try Fixtures.temporaryFolder()
        let item = MediaPipelineTests.process(Fixtures.url("video/black-start.mp4"), out: out)
        let (android, image) = try Self.android(item, in: out, source: PixelSize(width: 320, height: 180))
        Self.jpegOpaque(android, image)
        #expect(image.width == 320 && image.height == 160)
        #expect(try image.deviation() > 20, "the Android image is flat (black)")
    }

    @Test("a PNG with real transparency gives a PNG with alpha; an opaque one with an alpha band a JPEG")
    func transparency() throws {
        let (item, out) = try ImagePipelineTests.process("graphics/logo-alpha.png")
        let (android, image) = try Self.android(item, in: out, source: PixelSize(width: 600, height: 400))
        #expect(android.fileExtension == "png" && android.mimeType == "image/png" && image.bands == 4)
        #expect(image.width == 600 && image.height == 300)
        let (opaqueItem, opaqueOut) = try ImagePipelineTests.process("graphics/opaque-alpha.png")
        let (opaque, opaqueImage) = try Self.android(opaqueItem, in: opaqueOut, source: PixelSize(width: 500, height: 300))
        Self.jpegOpaque(opaque, opaqueImage)
    }

    @Test("MP3 with cover art: the art's Android image; without: none, and the item is still ok")
    func audio() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.mp3WithCoverArt(in: folder)
        let out = folder.appendingPathComponent("out")
        let item = MediaPipelineTests.process(input, out: out)
        let (android, image) = try Self.android(item, in: out, source: PixelSize(width: 1600, height: 1000))
        Self.jpegOpaque(android, image)
        let bare = MediaPipelineTests.process(Fixtures.url("audio/tone.mp3"), out: folder.appendingPathComponent("bare"))
        #expect(bare.status == .ok && bare.attachment(.android) == nil && bare.attachments.map(\.role) == [.media])
    }

    @Test("1×1 and 100×50 sources give 1×1 and 100×50 Android images, never upscaled")
    func tiny() throws {
        let folder = try Fixtures.temporaryFolder()
        for (width, height) in [(1, 1), (100, 50)] {
            let input = folder.appendingPathComponent("tiny-\(width)x\(height).png")
            // Debian's Python, which has Pillow (python3-pil), not a pyenv one first on PATH.
            let made = try CommandRunner.run(
                "/usr/bin/python3",
                ["-c", "import sys; from PIL import Image; Image.new('RGB', (\(width), \(height)), (48, 96, 192)).save(sys.argv[1])", input.path])
            try #require(made.status == 0, "python3-pil: \(made.error)")
            let out = folder.appendingPathComponent("out-\(width)")
            let item = MediaPipelineTests.process(input, out: out)
            let (android, image) = try Self.android(item, in: out, source: PixelSize(width: width, height: height))
            Self.jpegOpaque(android, image)
            // The whole source is the window: no narrower one is allowed below minWidth.
            #expect(image.width == width && image.height == height)
            #expect(android.sourceRect == UnitRect(x: 0, y: 0, width: 1, height: 1))
        }
    }
}
