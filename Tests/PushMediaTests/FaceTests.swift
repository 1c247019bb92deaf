import CFaceDetect
import CPushMediaTestSupport
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// Faces decide the crops (`crop: smart`, the default): a real photo of a person (scikit-image's
/// astronaut, from Debian's python3-skimage) beside saturated graphics that libvips' attention
/// prefers, in banners of several shapes, with the person on either side. The banners are made
/// at test time by `scripts/make-face-banners`, which also says where the face is (measured by
/// hand on the photo).
@Suite("Faces choose the subject")
struct FaceTests {
    /// One banner made by the script.
    struct Banner: Decodable, Sendable {
        var file: String
        var width: Int
        var height: Int
        /// The person's face as a unit rect of the banner; nil when there is no person.
        var face: UnitRect?
    }

    /// The banners, made once per test process.
    static let made: Result<(folder: URL, banners: [Banner]), Error> = Result {
        // Debian's python on purpose: python3-skimage installs there (scripts/test installs it).
        try madeByScript("make-face-banners", hint: "is python3-skimage installed?")
    }

    /// The files `scripts/<script>` makes in a fresh folder, and the JSON line it prints for
    /// each, run with Debian's python; `hint` says what to check when it fails.
    static func madeByScript<Made: Decodable>(_ script: String, hint: String) throws -> (folder: URL, banners: [Made]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushmedia-\(script)-\(getpid())")
        let path = Fixtures.packageRoot.appendingPathComponent("scripts/\(script)").path
        let result = try CommandRunner.run("/usr/bin/python3", [path, folder.path])
        guard result.status == 0 else {
            throw CommandFailure(description: "\(script) failed (\(hint)): \(result.error)")
        }
        let made = try result.output.split(separator: "\n").map { try JSONDecoder().decode(Made.self, from: Data($0.utf8)) }
        return (folder, made)
    }

    struct CommandFailure: Error, CustomStringConvertible { var description: String }

    static func banners() throws -> (URL, [Banner]) {
        let made = try made.get()
        return (made.folder, made.banners)
    }

    /// The first banner `width` pixels wide with a person, decoded whole, and its face.
    static func decodedBanner(width: Int) throws -> (image: Vips.Image, face: UnitRect) {
        let (folder, banners) = try banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width == width })
        let image = try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(banner.file)))
        return (image, try #require(banner.face))
    }

    /// Runs the image stages up to the crop on one banner: the subject and where both variants
    /// were cut, in pixels of the decoded image.
    static func cut(_ url: URL, profile: Profile = .default) throws -> (Subject, Framed, PixelSize) {
        let run = ItemRun(
            input: InputFile(path: url.path, source: url.lastPathComponent), profile: profile,
            options: ProcessingOptions(outputDirectory: FileManager.default.temporaryDirectory))
        let decoded = try Decoded.decode(try ProbedImage.probe(try Source.read(run), run), run)
        let subject = try Subject.find(in: decoded, run)
        let framed = try Framed.cut(decoded, around: subject, run)
        return (subject, framed, PixelSize(width: decoded.pixels.width, height: decoded.pixels.height))
    }

    /// True when `rect` (pixels of an image of `size`) holds the unit rect `face` whole.
    static func holds(_ rect: PixelRect, _ face: UnitRect, in size: PixelSize) -> Bool {
        let w = Double(size.width)
        let h = Double(size.height)
        return Double(rect.x) <= face.x * w + 0.5 && Double(rect.x + rect.width) >= face.maxX * w - 0.5
            && Double(rect.y) <= face.y * h + 0.5 && Double(rect.y + rect.height) >= face.maxY * h - 0.5
    }

    /// Intersection over union of two unit rects.
    static func overlap(_ a: UnitRect, _ b: UnitRect) -> Double {
        let iw = max(0, min(a.maxX, b.maxX) - max(a.x, b.x))
        let ih = max(0, min(a.maxY, b.maxY) - max(a.y, b.y))
        let inter = iw * ih
        return inter / (a.width * a.height + b.width * b.height - inter)
    }

    @Test("the embedded model is dlib's own (scripts/make-face-model regenerates it after a dlib upgrade)")
    func embeddedModel() {
        #expect(pm_face_model_is_dlibs() == 1)
    }

    @Test("the search reads a proxy of about 450,000 pixels of any larger image, its shape kept, and a smaller image at its own size")
    func searchProxySize() throws {
        for (width, height) in [(1200, 900), (1800, 600), (1000, 1000), (4000, 3000)] {
            let searched = try FaceDetector.search(try Vips.Image.noise(width: width, height: height)).searched
            let area = Double(searched.width * searched.height)
            #expect(
                abs(area - Double(FaceSearchSettings.searchArea)) < 0.01 * Double(FaceSearchSettings.searchArea), "\(width)×\(height) → \(searched)")
            #expect(abs(Double(searched.width) / Double(searched.height) - Double(width) / Double(height)) < 0.01)
        }
        let small = try FaceDetector.search(try Vips.Image.noise(width: 512, height: 512)).searched
        #expect(small == PixelSize(width: 512, height: 512))
        // An sRGB image is searched in its green band as it lies in memory; a grey one (no green
        // band) goes through libvips' B_W conversion first.
        let colour = try Vips.Image.noise(width: 1600, height: 900)
        #expect(try FaceDetector.searchedBand(of: colour).band == 1)
        let grey = try colour.colourspace(VIPS_INTERPRETATION_B_W)
        let (greyBand, index) = try FaceDetector.searchedBand(of: grey)
        #expect(greyBand.bands == 1 && index == 0)
        #expect(try FaceDetector.search(grey).searched == PixelSize(width: 894, height: 503))
        // 16-bit pixels are cast to 8 bits for the search; read as they are, they are refused.
        let deep = try colour.cast(VIPS_FORMAT_USHORT)
        #expect(throws: Vips.Error.self) { try deep.withMemoryBytes { $0.count } }
        #expect(try FaceDetector.search(deep).searched == PixelSize(width: 894, height: 503))
    }

    @Test("a face is found in the band the search reads, wherever it lies in the pixel: RGB, RGBA and grey copies of a banner give the same faces")
    func searchedBands() throws {
        let (rgb, face) = try Self.decodedBanner(width: 2400)
        let found = try FaceDetector.detect(in: rgb)
        #expect(found.contains { Self.overlap($0, face) > 0.3 }, "\(found)")
        // RGBA: an opaque alpha band after every pixel's three.
        var rgba = [UInt8]()
        rgba.reserveCapacity(rgb.width * rgb.height * 4)
        for (index, value) in try rgb.memoryBytes().enumerated() {
            rgba.append(value)
            if index % 3 == 2 { rgba.append(255) }
        }
        let withAlpha = try #require(
            rgba.withUnsafeBytes {
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(rgb.width), Int32(rgb.height), 4, VIPS_FORMAT_UCHAR)
            })
        withAlpha.pointee.Type = VIPS_INTERPRETATION_sRGB
        #expect(try FaceDetector.detect(in: Vips.Image(owning: withAlpha)) == found)
        // The grey copy is made of the green band: the same pixels, one band a pixel.
        let green = try rgb.extractBands(1, count: 1)
        #expect(try FaceDetector.detect(in: green) == found)
    }

    @Test(
        "a search of regions reads only the levels of the pyramid it is given: a face twice the window's size is found on a coarser level, not on the finest alone"
    )
    func regionLevels() throws {
        // The plan counts levels with the step the C search's pyramid takes.
        #expect(FaceSearchPlan.pyramidStep == Double(PM_FACE_PYRAMID_DOWN - 1) / Double(PM_FACE_PYRAMID_DOWN))
        let (image, face) = try Self.decodedBanner(width: 2400)
        let size = PixelSize(width: image.width, height: image.height)
        let faceWidth = face.width * Double(size.width)
        // The face and one face's width around it, read so the face is twice the window.
        let left = max(0, Int(face.x * Double(size.width) - faceWidth))
        let top = max(0, Int(face.y * Double(size.height) - faceWidth))
        let region = PixelRect(
            x: left, y: top, width: min(size.width, Int(face.maxX * Double(size.width) + faceWidth)) - left,
            height: min(size.height, Int(face.maxY * Double(size.height) + faceWidth)) - top)
        let scale = 2 * FaceSearchPlan.window / faceWidth
        let builds: [FaceDetector.SearchBuild] = FaceDetector.SearchBuild.avx2.isAvailable ? [.portable, .avx2] : [.portable]
        for build in builds {
            func found(levels: Int?) throws -> Bool {
                let plan = FaceSearchPlan(regions: [region], scale: scale, levels: levels)
                return try FaceDetector.search(image, in: plan, build: build).contains { Self.overlap($0, face) >= 0.3 }
            }
            // The finest level alone sees 80 px of a 160 px face; from 4 levels (1, 3/4, 9/16,
            // 27/64 of it) one is near the face's size, as with every level.
            #expect(try !found(levels: 1), "\(build)")
            #expect(try found(levels: 4), "\(build)")
            #expect(try found(levels: nil), "\(build)")
            #expect(throws: FaceDetector.Failure.self) { try found(levels: -1) }
        }
    }

    @Test("the face lies whole inside the square thumbnail's crop, the expanded crop and the clipping rect, on either side, in every shape")
    func faceInEveryCrop() throws {
        let (folder, banners) = try Self.banners()
        let people = banners.filter { $0.face != nil }
        #expect(people.count >= 10)
        for banner in people {
            let face = try #require(banner.face)
            let (subject, framed, working) = try Self.cut(folder.appendingPathComponent(banner.file))
            #expect(subject.strategy == .faces, "\(banner.file): \(subject.strategy)")
            let found = subject.faces ?? []
            #expect(found.contains { Self.overlap($0, face) > 0.3 }, "\(banner.file): faces \(found), expected \(face)")
            let p = framed.placement
            #expect(Self.holds(p.thumbnailRect, face, in: working), "\(banner.file): thumbnail \(p.thumbnailRect) cuts the face")
            #expect(Self.holds(p.expandedRect, face, in: working), "\(banner.file): expanded \(p.expandedRect) cuts the face")
            // The clipping rect is on the expanded output: the face in its unit coordinates.
            let e = p.expandedRect
            let inExpanded = UnitRect(
                x: (face.x * Double(working.width) - Double(e.x)) / Double(e.width),
                y: (face.y * Double(working.height) - Double(e.y)) / Double(e.height),
                width: face.width * Double(working.width) / Double(e.width), height: face.height * Double(working.height) / Double(e.height))
            let clip = p.clipRect
            let slack = 1.0 / 600 // one pixel of the expanded image
            #expect(
                clip.x <= inExpanded.x + slack && clip.x + clip.width >= inExpanded.maxX - slack
                    && clip.y <= inExpanded.y + slack && clip.y + clip.height >= inExpanded.maxY - slack,
                "\(banner.file): clip \(clip) cuts the face \(inExpanded)")
        }
    }

    @Test("the manifest records the faces and the strategy; its clip rect is the one cut")
    func manifestRecordsFaces() throws {
        let (folder, banners) = try Self.banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width == 2400 })
        let out = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent(banner.file)
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: url.path, source: banner.file))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let probe = try #require(item.probe)
        #expect(probe.subjectStrategy == .faces)
        let faces = try #require(probe.faces)
        let face = try #require(banner.face)
        #expect(faces.contains { Self.overlap($0, face) > 0.3 }, "\(faces)")
        for face in faces { #expect(face.x >= 0 && face.y >= 0 && face.maxX <= 1 && face.maxY <= 1) }
        let (_, framed, _) = try Self.cut(url)
        #expect(item.attachment(.expanded)?.options.thumbnailClippingRect == framed.placement.clipRect)
        #expect(item.warnings.isEmpty, "\(item.warnings)")
    }

    /// One banner of `scripts/make-group-banners`: a group photo of dlib's examples.
    struct GroupBanner: Decodable, Sendable {
        var file: String
        var width: Int
        var height: Int
        var faceSize: Int
        var side: String
        /// The faces whole in the banner (dlib's boxes), unit rects of it.
        var faces: [UnitRect]
        /// Faces the photo's crop cut: neither required nor false.
        var cut: [UnitRect]
    }

    /// The group banners, made once per test process: each of dlib's nine example group photos
    /// with faces 40, 60, 90 and 140 px wide, in 1200×600, 2400×800 and 3000×1000 banners,
    /// left and right of graphics.
    static let groups: Result<(folder: URL, banners: [GroupBanner]), Error> = Result {
        try madeByScript("make-group-banners", hint: "is libdlib19.1's /usr/share/doc/libdlib19.1/examples installed?")
    }

    @Test(
        "group photos with faces of 40 to 140 px in wide banners: faces found in at least 95 % of them, no false face, and the chosen faces inside both crops and the clipping rect"
    )
    func groupBanners() throws {
        let (folder, banners) = try Self.groups.get()
        #expect(banners.count == 36)
        #expect(Set(banners.map(\.faceSize)) == [40, 60, 90, 140] && Set(banners.map(\.width)) == [1200, 2400, 3000])
        var withFaces: [String] = []
        for banner in banners {
            let url = folder.appendingPathComponent(banner.file)
            let (subject, framed, working) = try Self.cut(url)
            let found = subject.faces ?? []
            for face in found {
                #expect((banner.faces + banner.cut).contains { Self.overlap($0, face) >= 0.3 }, "\(banner.file): false face \(face)")
            }
            guard subject.strategy == .faces else { continue }
            withFaces.append(banner.file)
            let chosen = try #require(FaceSubject.choose(faces: found, in: working)).faces
            let p = framed.placement
            let e = p.expandedRect
            for face in chosen {
                #expect(Self.holds(p.thumbnailRect, face, in: working), "\(banner.file): thumbnail \(p.thumbnailRect) cuts \(face)")
                #expect(Self.holds(e, face, in: working), "\(banner.file): expanded \(e) cuts \(face)")
                let inExpanded = UnitRect(
                    x: (face.x * Double(working.width) - Double(e.x)) / Double(e.width),
                    y: (face.y * Double(working.height) - Double(e.y)) / Double(e.height),
                    width: face.width * Double(working.width) / Double(e.width), height: face.height * Double(working.height) / Double(e.height))
                let clip = p.clipRect
                let slack = 1.0 / 600
                #expect(
                    clip.x <= inExpanded.x + slack && clip.x + clip.width >= inExpanded.maxX - slack
                        && clip.y <= inExpanded.y + slack && clip.y + clip.height >= inExpanded.maxY - slack,
                    "\(banner.file): clip \(clip) cuts \(inExpanded)")
            }
        }
        // The second look's two builds find the same faces (on the 40 px banners, which need it).
        if FaceDetector.SearchBuild.avx2.isAvailable {
            var compared = 0
            for banner in banners where banner.faceSize == 40 {
                let source = try Vips.Image.decode(try Data(contentsOf: folder.appendingPathComponent(banner.file)))
                let image = try source.reduced(to: ImagePlan(source: PixelSize(width: source.width, height: source.height), profile: .default).decode)
                let first = try FaceDetector.search(image)
                guard
                    let plan = FaceSearchPlan.plan(
                        cells: try FaceDetector.cells(of: image), image: PixelSize(width: image.width, height: image.height),
                        firstScale: Double(first.searched.width) / Double(image.width),
                        smallestFace: FaceSearchPlan.smallestSourceFace * Double(image.width) / Double(source.width))
                else { continue }
                let portable = try FaceDetector.search(image, in: plan, build: .portable)
                #expect(portable == (try FaceDetector.search(image, in: plan, build: .avx2)), "\(banner.file)")
                compared += portable.count
            }
            #expect(compared > 0)
        }
        let missed = banners.map(\.file).filter { !withFaces.contains($0) }
        #expect(Double(withFaces.count) >= 0.95 * Double(banners.count), "no face found in \(missed)")
    }

    @Test("graphics alone and a cat give no face, and the crops are attention's, byte for byte")
    func noFaceIsAttention() throws {
        let (folder, banners) = try Self.banners()
        let controls = banners.filter { $0.face == nil }
        #expect(controls.count >= 4)
        for banner in controls {
            let url = folder.appendingPathComponent(banner.file)
            let smartOut = try Fixtures.temporaryFolder("smart-\(banner.file)")
            let attentionOut = try Fixtures.temporaryFolder("attention-\(banner.file)")
            let smart = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: smartOut))
                .process(InputFile(path: url.path, source: banner.file))
            let attention = ItemProcessor(profile: Profile(crop: .attention), options: ProcessingOptions(outputDirectory: attentionOut))
                .process(InputFile(path: url.path, source: banner.file))
            #expect(smart.probe?.faces == [], "\(banner.file): \(smart.probe?.faces ?? [])")
            #expect(smart.probe?.subjectStrategy == .attention)
            #expect(attention.probe?.faces == nil, "attention does not look for faces")
            #expect(attention.probe?.subjectStrategy == .attention)
            #expect(smart.probe?.subject == attention.probe?.subject, "\(banner.file)")
            #expect(smart.attachments.map(\.sha256) == attention.attachments.map(\.sha256), "\(banner.file): other crops")
            #expect(
                smart.attachment(.expanded)?.options.thumbnailClippingRect
                    == attention.attachment(.expanded)?.options.thumbnailClippingRect)
        }
    }

    @Test("crop: attention keeps today's behaviour: no faces looked for, attention's subject")
    func attentionProfileIgnoresFaces() throws {
        let (folder, banners) = try Self.banners()
        let banner = try #require(banners.first { $0.face != nil })
        let (subject, _, _) = try Self.cut(folder.appendingPathComponent(banner.file), profile: Profile(crop: .attention))
        #expect(subject.strategy == .attention)
        #expect(subject.faces == nil && subject.keep.isEmpty)
    }

    @Test("an animation: the faces on its representative frame choose the subject")
    func animation() throws {
        let (folder, banners) = try Self.banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width == 1600 && $0.file.contains("right") })
        let out = try Fixtures.temporaryFolder()
        // Four frames of the banner, a flat grey one first (not the representative frame).
        let gif = try MediaFactory.make(
            "person.gif", in: out,
            [
                "-f", "lavfi", "-i", "color=c=gray:s=\(banner.width)x\(banner.height):d=0.25:r=4",
                "-loop", "1", "-t", "0.75", "-r", "4", "-i", folder.appendingPathComponent(banner.file).path,
                "-filter_complex", "[0:v][1:v]concat=n=2:v=1,split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0",
            ])
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: gif.path, source: "person.gif"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .animatedImage)
        #expect(item.probe?.subjectStrategy == .faces)
        let face = try #require(banner.face)
        #expect(item.probe?.faces?.contains { Self.overlap($0, face) > 0.3 } == true, "\(item.probe?.faces ?? [])")
        // The person is on the right: so is the thumbnail's crop.
        let crop = try #require(item.attachment(.thumbnail)?.sourceRect)
        #expect(crop.x <= face.x + 1e-3 && crop.maxX >= face.maxX - 1e-3, "\(crop) \(face)")
    }

    @Test("a movie's poster frame: its faces choose the subject the same way")
    func moviePoster() throws {
        let (folder, banners) = try Self.banners()
        let banner = try #require(banners.first { $0.face != nil && $0.width == 1600 && $0.file.contains("left") })
        let out = try Fixtures.temporaryFolder()
        // Two seconds of the still banner, as H.264.
        let movie = try MediaFactory.make(
            "person.mp4", in: out,
            [
                "-loop", "1", "-i", folder.appendingPathComponent(banner.file).path, "-t", "2", "-r", "10",
                "-c:v", "libx264", "-pix_fmt", "yuv420p",
            ])
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: movie.path, source: "person.mp4"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.probe?.subjectStrategy == .faces)
        let face = try #require(banner.face)
        #expect(item.probe?.faces?.contains { Self.overlap($0, face) > 0.3 } == true, "\(item.probe?.faces ?? [])")
        // The clip rect holds the face: the person is on the left third of the expanded image.
        let clip = try #require(item.attachment(.expanded)?.options.thumbnailClippingRect)
        #expect(clip.x < 0.2, "\(clip)")
    }
}
