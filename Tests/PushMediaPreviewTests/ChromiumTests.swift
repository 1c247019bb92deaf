import Foundation
import PushMediaModel
import PushMediaPreview
import Testing

/// Renders real pages in headless Chromium (Debian's `chromium`): the screenshot must show the
/// page and its images, and the browser must log no console message. Without chromium (or
/// python3, which decodes the screenshot) the tests are skipped locally and fail when `CI` is set.
@Suite("Preview page in headless Chromium", .enabled(if: Browser.shouldRun, Browser.skipMessage))
struct ChromiumTests {
    // Colours of the hand-made images, absent from the page's own style.
    static let magenta: TestMedia.RGB = (255, 0, 255)
    static let green: TestMedia.RGB = (0, 255, 0)
    static let cyan: TestMedia.RGB = (0, 255, 255)
    static let yellow: TestMedia.RGB = (255, 255, 0)
    static let blue: TestMedia.RGB = (0, 0, 255)

    @Test func realOutputFolderRendersWithImagesAndNoConsoleMessages() throws {
        let tools = try Browser.tools()
        let root = try Browser.scratchFolder()
        defer { Browser.cleanUp(root) }
        // The page goes into site/, the manifest and files into "out dir/" (a space on purpose).
        let out = root.appendingPathComponent("out dir", isDirectory: true)
        let site = root.appendingPathComponent("site", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)

        // Item 1: expanded image magenta on the left half, green on the right; its clipping rect
        // is the right half, so both clipped thumbnails must be all green. Thumbnail file: cyan.
        let files: [(String, Data)] = [
            ("wide image #1.png", TestMedia.png(width: 192, height: 96) { x, _ in x < 96 ? Self.magenta : Self.green }),
            ("c0ffee-thumb.png", TestMedia.png(width: 96, height: 96, solid: Self.cyan)),
            // Item 2: a hostile file name for the thumbnail (yellow), a blue expanded image.
            (#"x" onerror="alert(1)<b>.png"#, TestMedia.png(width: 96, height: 96, solid: Self.yellow)),
            ("b10e-expanded.png", TestMedia.png(width: 192, height: 96, solid: Self.blue)),
            ("jingle.wav", TestMedia.wav()),
        ]
        var sizes: [String: Int] = [:]
        for (name, data) in files {
            try data.write(to: out.appendingPathComponent(name))
            sizes[name] = data.count
        }
        func image(_ role: PushMediaModel.Attachment.Role, _ file: String, _ w: Int, _ h: Int, rect: UnitRect? = nil) -> PushMediaModel.Attachment {
            PushMediaModel.Attachment(
                identifier: role.rawValue, role: role, file: file, typeHint: "public.png", fileExtension: "png",
                mimeType: "image/png", bytes: sizes[file]!, sha256: "0", width: w, height: h,
                options: .init(thumbnailHidden: false, thumbnailClippingRect: rect))
        }
        let manifest = Manifest(
            profile: .default,
            items: [
                Item(
                    source: "a/split.png", kind: .image, status: .ok, probe: Probe(format: "png", width: 192, height: 96),
                    attachments: [
                        image(.thumbnail, "c0ffee-thumb.png", 96, 96),
                        image(.expanded, "wide image #1.png", 192, 96, rect: UnitRect(x: 0.5, y: 0, width: 0.5, height: 1)),
                    ],
                    warnings: ["transcoded WebP to PNG"]),
                Item(
                    source: "b/<script>alert(1)</script>.png", kind: .image, status: .ok, probe: Probe(format: "png"),
                    attachments: [
                        image(.thumbnail, #"x" onerror="alert(1)<b>.png"#, 96, 96),
                        image(.expanded, "b10e-expanded.png", 192, 96, rect: UnitRect(x: 0.25, y: 0, width: 0.5, height: 1)),
                    ]),
                Item(
                    source: "c/jingle.wav", kind: .audio, status: .ok, probe: Probe(format: "wav", durationSeconds: 1),
                    attachments: [
                        PushMediaModel.Attachment(
                            identifier: "media", role: .media, file: "jingle.wav", typeHint: "com.microsoft.waveform-audio",
                            fileExtension: "wav", mimeType: "audio/wav", bytes: sizes["jingle.wav"]!, sha256: "0",
                            options: .init(thumbnailHidden: false))
                    ]),
                .failed(
                    source: #"0/"onerror=alert(2) <img src=x>.jpg"#, kind: .image,
                    error: ItemError(.corruptInput, #"cannot decode "onerror=alert(3) <script>alert(4)</script>"#)),
            ])
        try manifest.jsonData().write(to: out.appendingPathComponent("manifest.json"))
        let html = PreviewRenderer.render(
            manifest: manifest, pageDirectory: site, manifestDirectory: out,
            title: "Spring sale", body: "Everything half price until Sunday.",
            budgets: [.thumbnail: 150_000, .expanded: 1_000_000])
        let page = site.appendingPathComponent("preview.html")
        try Data(html.utf8).write(to: page)

        // Every relative reference resolves to a file next to the manifest.
        for value in html.attributeValues("src") + html.attributeValues("href") where !value.hasPrefix("#") {
            let path = try #require(value.removingPercentEncoding)
            #expect(path.hasPrefix("../out dir/"), "\(value)")
            #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent(path).path), "\(value) does not resolve")
        }

        let run = try Browser.screenshot(page, chromium: tools.chromium, in: root)
        #expect(run.exitStatus == 0, "chromium exited with \(run.exitStatus):\n\(run.log.suffix(2000))")
        #expect(run.consoleLines.isEmpty, "console messages:\n\(run.consoleLines.joined(separator: "\n"))")

        let pixels = try Browser.analyse(
            run.screenshot, python: tools.python, in: root,
            targets: [
                "magenta": Self.magenta, "green": Self.green, "cyan": Self.cyan, "yellow": Self.yellow, "blue": Self.blue,
            ])
        #expect(pixels.width == 1200 && pixels.height == 2000)
        #expect(pixels.distinctColours > 500, "a page of text, cards and gradients has many colours")
        #expect(pixels.nonBackgroundFraction > 0.25, "most of the screenshot is one colour")
        // The images loaded through their relative, percent-encoded URLs.
        #expect(pixels.targets["magenta", default: 0] > 5_000, "expanded image of item 1 missing")
        #expect(pixels.targets["cyan", default: 0] > 10_000, "thumbnail file of item 1 missing")
        #expect(pixels.targets["yellow", default: 0] > 10_000, "thumbnail with a hostile file name missing")
        #expect(pixels.targets["blue", default: 0] > 10_000, "expanded image of item 2 missing")
        // The clipping rect is the green half: the expanded view shows as much magenta as green,
        // the two clipped thumbnails (banner and comparison) add green only.
        let extraGreen = pixels.targets["green", default: 0] - pixels.targets["magenta", default: 0]
        if ProcessInfo.processInfo.environment["PUSHMEDIA_KEEP_PREVIEW"] != nil { print("pixels: \(pixels)") }
        #expect(extraGreen > 15_000, "clipped thumbnails do not show the clipping rect's half (\(pixels.targets))")
    }

    /// The checks above can fail: a blank page is found blank, a script error is found in the log.
    @Test func detectorsCatchABlankPageAndAConsoleError() throws {
        let tools = try Browser.tools()
        let root = try Browser.scratchFolder()
        defer { Browser.cleanUp(root) }
        let blank = root.appendingPathComponent("blank.html")
        try Data("<!DOCTYPE html><html><body></body></html>".utf8).write(to: blank)
        let broken = root.appendingPathComponent("broken.html")
        try Data(#"<!DOCTYPE html><html><body><p>x</p><script>console.error("planted"); undefinedFunction();</script></body></html>"#.utf8)
            .write(to: broken)

        let blankRun = try Browser.screenshot(blank, chromium: tools.chromium, in: root)
        let blankPixels = try Browser.analyse(blankRun.screenshot, python: tools.python, in: root, targets: [:])
        #expect(blankPixels.distinctColours == 1)
        #expect(blankPixels.nonBackgroundFraction == 0)
        #expect(blankRun.consoleLines.isEmpty)

        let brokenRun = try Browser.screenshot(broken, chromium: tools.chromium, in: root)
        #expect(brokenRun.consoleLines.contains { $0.contains("planted") })
        #expect(brokenRun.consoleLines.contains { $0.contains("Uncaught ReferenceError") })
    }
}

/// Headless Chromium and the screenshot decoder, for the tests.
enum Browser {
    struct Tools {
        var chromium: String
        var python: String
    }

    struct Run {
        var exitStatus: Int32
        var log: String
        var screenshot: URL
        /// Lines Chromium logs for console messages (errors, uncaught exceptions, CSP violations).
        var consoleLines: [String] {
            log.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        }
    }

    struct Pixels: Decodable {
        var width: Int
        var height: Int
        var distinctColours: Int
        var nonBackgroundFraction: Double
        var targets: [String: Int]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let chromiumPath = findExecutable(ProcessInfo.processInfo.environment["CHROMIUM"] ?? "chromium")
    static let pythonPath = findExecutable("python3")
    static let onCI = ProcessInfo.processInfo.environment["CI"].map { !["", "0", "false"].contains($0.lowercased()) } ?? false

    /// Run when the tools are there, and always on CI (where missing tools fail the tests).
    static var shouldRun: Bool { onCI || (chromiumPath != nil && pythonPath != nil) }
    static var skipMessage: Comment {
        "headless Chromium test skipped: `chromium` (Debian package chromium) and `python3` must be on PATH; with CI set it fails instead"
    }

    /// The tools, or a failure naming what is missing (on CI the tests then fail).
    static func tools() throws -> Tools {
        guard let chromium = chromiumPath else {
            throw Failure(description: "chromium is not on PATH (CI is set: install Debian's chromium package)")
        }
        guard let python = pythonPath else {
            throw Failure(description: "python3 is not on PATH; it decodes the screenshot")
        }
        return Tools(chromium: chromium, python: python)
    }

    static func findExecutable(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Removes a scratch folder, unless `PUSHMEDIA_KEEP_PREVIEW` is set (to look at the page and
    /// screenshot afterwards: the folder is printed).
    static func cleanUp(_ folder: URL) {
        if ProcessInfo.processInfo.environment["PUSHMEDIA_KEEP_PREVIEW"] != nil {
            print("kept preview test folder: \(folder.path)")
        } else {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushmedia-preview-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Screenshots `page` at 1200×2000 with console messages logged to stderr.
    static func screenshot(_ page: URL, chromium: String, in folder: URL, timeout: TimeInterval = 120) throws -> Run {
        let id = UUID().uuidString
        let shot = folder.appendingPathComponent("shot-\(id).png")
        let logURL = folder.appendingPathComponent("chromium-\(id).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--force-color-profile=srgb", "--force-device-scale-factor=1",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--user-data-dir=\(folder.appendingPathComponent("profile-\(id)").path)",
            "--enable-logging=stderr", "--v=0",
            "--window-size=1200,2000", "--screenshot=\(shot.path)",
            page.absoluteString,
        ]
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "chromium did not finish within \(Int(timeout)) s")
        }
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        guard FileManager.default.fileExists(atPath: shot.path) else {
            throw Failure(description: "chromium wrote no screenshot (exit \(process.terminationStatus)):\n\(text.suffix(3000))")
        }
        return Run(exitStatus: process.terminationStatus, log: text, screenshot: shot)
    }

    /// Decodes the PNG with Python's standard library (zlib + struct) and counts colours: how
    /// many distinct ones, how much is not the most common (background) colour, and how many
    /// pixels are within 12 levels of each target colour.
    static func analyse(_ png: URL, python: String, in folder: URL, targets: [String: TestMedia.RGB]) throws -> Pixels {
        let script = folder.appendingPathComponent("analyse-png.py")
        if !FileManager.default.fileExists(atPath: script.path) {
            try Data(analyser.utf8).write(to: script)
        }
        let targetJSON =
            "{"
            + targets.map { "\"\($0.key)\": [\($0.value.0), \($0.value.1), \($0.value.2)]" }
            .joined(separator: ", ") + "}"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, png.path, targetJSON]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "PNG analysis failed: \(errorText)")
        }
        return try JSONDecoder().decode(Pixels.self, from: data)
    }

    static let analyser = #"""
        import sys, zlib, struct, json, collections
        data = open(sys.argv[1], 'rb').read()
        targets = json.loads(sys.argv[2])
        assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
        pos, idat, ihdr = 8, [], None
        while pos < len(data):
            (length,) = struct.unpack('>I', data[pos:pos + 4]); kind = data[pos + 4:pos + 8]
            body = data[pos + 8:pos + 8 + length]; pos += 12 + length
            if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
            elif kind == b'IDAT': idat.append(body)
            elif kind == b'IEND': break
        width, height, depth, ctype, _, _, interlace = ihdr
        assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unsupported PNG %r' % (ihdr,)
        bpp = 3 if ctype == 2 else 4
        raw = zlib.decompress(b''.join(idat))
        stride = width * bpp
        prev = bytearray(stride); rows = []; i = 0
        for y in range(height):
            f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
            if f == 1:
                for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
            elif f == 2:
                line = bytearray((a + b) & 255 for a, b in zip(line, prev))
            elif f == 3:
                for x in range(stride):
                    left = line[x - bpp] if x >= bpp else 0
                    line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
            elif f == 4:
                for x in range(stride):
                    a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c; pa = abs(p - a); pb = abs(p - b); pc = abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            rows.append(bytes(line)); prev = line
        counts = collections.Counter()
        for line in rows:
            counts.update(line[x:x + 3] for x in range(0, stride, bpp))
        background, bg_count = counts.most_common(1)[0]
        near = lambda c, t: all(abs(c[k] - t[k]) <= 12 for k in range(3))
        print(json.dumps({
            'width': width, 'height': height, 'distinctColours': len(counts),
            'nonBackgroundFraction': 1 - bg_count / (width * height),
            'targets': {name: sum(n for c, n in counts.items() if near(c, rgb)) for name, rgb in targets.items()},
        }))
        """#
}
