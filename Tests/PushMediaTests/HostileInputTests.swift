import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// FFmpeg and libvips see only the formats PushMedia accepts: crafted files fail closed with a
/// known code, reach no network and read nothing outside the input; multi-page TIFFs give their
/// first page; animated WebP stays animated.
@Suite("Hostile inputs and the format whitelists")
struct HostileInputTests {
    static func process(_ file: URL, out: URL) -> Item {
        ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: file.path, source: file.lastPathComponent))
    }

    @Test("crafted files fail with their code; no connection to 127.0.0.1, no read of the files they name")
    func craftedCorpusFailsClosed() throws {
        let workspace = try HostileCorpus.Workspace()
        let listener = try LoopbackListener()
        let watch = try FolderAccessWatch(workspace.secrets)
        // Both detectors see what they are meant to see.
        try listener.connectOnce()
        #expect(listener.takeConnections() == 1)
        _ = try Data(contentsOf: workspace.secrets.appendingPathComponent("secret.txt"))
        #expect(watch.takeEvents() > 0)

        let corpus = try HostileCorpus.write(into: workspace.input, port: listener.port, secrets: workspace.secrets)
        for entry in corpus {
            let item = Self.process(workspace.input.appendingPathComponent(entry.name), out: workspace.out)
            #expect(item.status == .failed, "\(entry.name) came out \(item.status)")
            #expect(item.error?.code.rawValue == entry.code, "\(entry.name): \(item.error?.code.rawValue ?? "-") \(item.error?.message ?? "")")
            #expect(item.attachments.isEmpty)
        }
        #expect(listener.takeConnections() == 0, "a crafted file made a network connection")
        #expect(watch.takeEvents() == 0, "a crafted file opened a file outside the input")
    }

    @Test("a playlist behind an ID3 tag is refused naming what FFmpeg saw; a PhotoCD-like file is unsupported_type")
    func mismatchMessages() throws {
        let folder = try Fixtures.temporaryFolder()
        let corpus = try HostileCorpus.write(into: folder, port: 9, secrets: folder)
        #expect(corpus.contains { $0.name == "photocd.mp3" })
        let photoCD = Self.process(folder.appendingPathComponent("photocd.mp3"), out: folder.appendingPathComponent("out"))
        #expect(photoCD.error?.code == .unsupportedType)
        #expect(photoCD.kind != .video && photoCD.kind != .audio)
        let concat = Self.process(folder.appendingPathComponent("concat.mp3"), out: folder.appendingPathComponent("out"))
        #expect(concat.error?.code == .unsupportedType)
        #expect(concat.error?.message.contains("concat") == true, "\(concat.error?.message ?? "")")
    }

    @Test("FFmpeg opens a file only with the demuxer for its sniffed format")
    func demuxerFromSniffedFormat() throws {
        // A real MP3 opened as what its bytes are works; claimed to be a movie container, it fails.
        let mp3 = Fixtures.url("audio/tone.mp3").path
        let description = try FFmpeg.MediaFile(path: mp3, format: .mp3, deadline: .now + .seconds(30)).probe()
        #expect(description.container == "mp3")
        #expect(throws: FFmpeg.Error.self) { try FFmpeg.MediaFile(path: mp3, format: .mp4, deadline: .now + .seconds(30)) }
        #expect(throws: ItemError.self) { try FFmpeg.MediaFile(path: mp3, format: .jpeg, deadline: .now + .seconds(30)) }
        #expect(throws: ItemError.self) { try FFmpeg.MediaFile(path: mp3, format: nil, deadline: .now + .seconds(30)) }
    }

    @Test("raw AAC (ADTS) goes through its own demuxer and is copied into M4A")
    func adtsAudio() throws {
        let folder = try Fixtures.temporaryFolder()
        let aac = try MediaFactory.make(
            "tone.aac", in: folder, ["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", "-b:a", "96k", "-f", "adts"])
        let out = folder.appendingPathComponent("out")
        let item = Self.process(aac, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .audio && item.probe?.format == "aac")
        let media = try #require(item.attachments.first { $0.fileExtension == "m4a" })
        let probed = try MediaFactory.probe(out.appendingPathComponent(media.file))
        #expect(probed.formatName.contains("mp4") || probed.formatName.contains("m4a"), "\(probed.formatName)")
        #expect(probed.audio?["codec_name"] as? String == "aac")
        #expect(abs(probed.duration - 2) < 0.2, "\(probed.duration)")
    }

    /// Whether this process started with a VIPSHOME of its own, which makes libvips load its
    /// modules itself (a user's choice the module checks cannot hold against).
    static func startedWithVIPSHOME() throws -> Bool {
        let startEnvironment = try #require(FileHandle(forReadingAtPath: "/proc/self/environ")).readDataToEndOfFile()
        return startEnvironment.split(separator: 0).contains { $0.starts(with: Data("VIPSHOME=".utf8)) }
    }

    @Test("libvips' HEIF module (libheif and its codecs) is opened by the first HEIF image, not at start-up; no other module ever")
    func heifModuleOpensOnFirstUse() throws {
        guard try !Self.startedWithVIPSHOME() else { return }
        // The child starts as a user's would: without the VIPSHOME this test process may hold by
        // now (PushMedia's prefix, or libvips' own when a test reached libvips before
        // Vips.start()).
        var environment = ProcessInfo.processInfo.environment
        environment["VIPSHOME"] = nil
        environment["LD_DEBUG"] = "files"
        func modulesOpened(_ fixture: String) throws -> Set<String> {
            let result = try CommandRunner.run(CommandRunner.pushmedia, ["probe", Fixtures.url(fixture).path], environment: environment)
            #expect(result.status == 0, "probe \(fixture): \(result.error.suffix(300))")
            #expect(result.error.contains("libvips.so"), "LD_DEBUG=files printed no loads")
            let modules = ["vips-heif.so", "vips-magick.so", "vips-poppler.so", "vips-jxl.so", "vips-openslide.so"]
            return Set(modules.filter { result.error.contains($0) })
        }
        #expect(try modulesOpened("photos/landscape.jpg") == [])
        #expect(try modulesOpened("photos/scene.heic") == ["vips-heif.so"])
    }

    @Test("libvips never loads SVG, PDF or anything else it would guess, even from cover-art bytes; its modules but HEIF's are not loaded")
    func libvipsLoadersBlocked() throws {
        try Vips.start()
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\"/></svg>".utf8)
        #expect(throws: Vips.Error.self) { try Vips.Image.decode(svg) }
        // libvips itself refuses every other loader, so even its own guess could not reach them.
        for blocked in [
            "svgload_buffer", "pdfload_buffer", "magickload_buffer", "matrixload_source", "csvload_source",
            "vipsload_source", "ppmload_source", "fitsload_source", "jxlload_buffer", "openslideload_source",
        ] {
            #expect(Vips.isBlocked(blocked) != false, "\(blocked) may run")
        }
        // The HEIF module opens with the first HEIF image (pm_vips_load_heif): load one first.
        #expect(try Vips.Image.decode(try Data(contentsOf: Fixtures.url("photos/scene.heic"))).width > 0)
        for allowed in [
            "jpegload_source", "pngload_source", "gifload_source", "webpload_source", "heifload_source",
            "heifload_buffer", "tiffload_source", "jpegload_buffer",
        ] {
            #expect(Vips.isBlocked(allowed) == false, "\(allowed) is blocked")
        }
        #expect(Vips.isBlocked("svgload_buffer") == true, "the SVG loader exists and is blocked")
        let jpeg = try Data(contentsOf: Fixtures.url("photos/landscape.jpg"))
        #expect(try Vips.Image.decode(jpeg).width > 0)
        // libvips' modules other than HEIF's are never loaded, so their loaders do not even exist.
        // Tests share this process: this holds only if every way into libvips, whichever test
        // took it first, starts libvips as PushMedia does (Vips.start()).
        guard try !Self.startedWithVIPSHOME() else { return }
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"]?.hasPrefix("/nonexistent/pushmedia") == true)
        for absent in ["magickload_buffer", "pdfload_buffer", "jxlload_buffer", "openslideload_source"] {
            #expect(Vips.isBlocked(absent) == nil, "\(absent) was loaded")
        }
    }

    @Test("libvips compiles no code at run time (liborc), whatever VIPS_NOVECTOR says")
    func noRunTimeCode() throws {
        // scripts/test does not set VIPS_NOVECTOR: this process starts libvips as the product does.
        try Vips.start()
        #expect(!Vips.usesRunTimeCode)
        for environment in [[:], ["VIPS_NOVECTOR": "0"], ["VIPS_CONCURRENCY": "4", "PUSHMEDIA_VIPS_WARNINGS": "1"]] {
            #expect(!Vips.Settings.product(environment: environment).runTimeCode, "\(environment)")
        }
        #expect(Vips.Settings.product(environment: [:]) == .init(threadsPerOperation: 1, runTimeCode: false, warnings: false))
        #expect(
            Vips.Settings.product(environment: ["VIPS_CONCURRENCY": "4", "PUSHMEDIA_VIPS_WARNINGS": "1"])
                == .init(threadsPerOperation: 0, runTimeCode: false, warnings: true))
    }

    @Test("a multi-page TIFF gives its first page, with a warning")
    func multiPageTIFF() throws {
        let folder = try Fixtures.temporaryFolder()
        let file = folder.appendingPathComponent("pages.tif")
        try TIFFWriter.greyPages([(400, 200, 60), (120, 300, 200), (50, 50, 10)]).write(to: file)
        let item = Self.process(file, out: folder.appendingPathComponent("out"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .image)
        #expect(item.probe?.width == 400 && item.probe?.height == 200 && item.probe?.frames == 1)
        #expect(item.warnings.contains { $0.contains("3 pages") && $0.contains("first") }, "\(item.warnings)")
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 400 && expanded.height == 200)
        let image = try OutputInspection.image(expanded, in: folder.appendingPathComponent("out"))
        let grey = try image.pixel(x: 200, y: 100)
        #expect(grey.allSatisfy { abs($0 - 60) <= 2 }, "the pixels are page 0's: \(grey)")
    }

    @Test("an animated WebP stays animated")
    func animatedWebP() throws {
        let folder = try Fixtures.temporaryFolder()
        let webp = try MediaFactory.make(
            "anim.webp", in: folder,
            ["-f", "lavfi", "-i", "testsrc2=s=160x120:r=5:d=2", "-c:v", "libwebp_anim", "-loop", "0", "-lossless", "0"])
        let item = Self.process(webp, out: folder.appendingPathComponent("out"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .animatedImage)
        #expect(item.probe?.frames == 10)
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.fileExtension == "gif" && expanded.frames == 10)
    }
}

/// Writes uncompressed 8-bit grey TIFFs with one IFD per page (tests only).
enum TIFFWriter {
    static func greyPages(_ pages: [(width: Int, height: Int, grey: UInt8)]) -> Data {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { HostileCorpus.littleEndian32(UInt32(v)) }
        var bytes: [UInt8] = Array("II".utf8) + u16(42) + u32(0)
        var nextPointer = 4
        for page in pages {
            let dataOffset = bytes.count
            bytes += [UInt8](repeating: page.grey, count: page.width * page.height)
            if bytes.count % 2 == 1 { bytes.append(0) }
            bytes.replaceSubrange(nextPointer..<nextPointer + 4, with: u32(bytes.count))
            // tag, type (3 short, 4 long), value
            let entries: [(Int, Int, Int)] = [
                (256, 4, page.width), (257, 4, page.height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
                (273, 4, dataOffset), (277, 3, 1), (278, 4, page.height), (279, 4, page.width * page.height),
            ]
            bytes += u16(entries.count)
            for (tag, type, value) in entries {
                bytes += u16(tag) + u16(type) + u32(1) + (type == 3 ? u16(value) + [0, 0] : u32(value))
            }
            nextPointer = bytes.count
            bytes += u32(0)
        }
        return Data(bytes)
    }
}
