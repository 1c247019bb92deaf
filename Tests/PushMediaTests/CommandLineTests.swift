import Foundation
import PushMediaModel
import Testing

/// The `pushmedia` binary as a user runs it: exit codes, outputs, messages.
@Suite("Command line")
struct CommandLineTests {
    let pushmedia = CommandRunner.pushmedia

    @Test("process on the fixtures: exit 1 (the broken files), complete manifest, summary")
    func processFixtures() throws {
        let out = try Fixtures.temporaryFolder()
        let result = try CommandRunner.run(pushmedia, ["process", Fixtures.root.path, "--out", out.path, "--jobs", "2"])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.output.contains("5 failed"))
        #expect(result.output.contains("manifest: \(out.path)/manifest.json"))
        // Not a terminal: one plain line per item on standard error.
        let lines = result.error.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(lines.count == (try Fixtures.allSources()).count)
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.count == lines.count)
        // The review page sits next to the manifest and names every item.
        let page = try String(contentsOf: out.appendingPathComponent("preview.html"), encoding: .utf8)
        #expect(result.output.contains("preview:  \(out.path)/preview.html"))
        for item in manifest.items {
            #expect(page.contains(item.source), "\(item.source) missing from preview.html")
        }
    }

    @Test("exit 0 when every item is ok; --json ends with a machine-readable summary event")
    func processAllOK() throws {
        let input = try Fixtures.temporaryFolder()
        try Fixtures.copy(["photos/landscape.jpg", "graphics/logo-alpha.png"], into: input)
        // A hidden folder inside the input folder may be the output folder: the walk skips it.
        let out = input.appendingPathComponent(".out")
        let result = try CommandRunner.run(
            pushmedia, ["process", input.path, "--out", out.path, "--json", "--base-url", "https://cdn.example.com/x"])
        #expect(result.status == 0, "\(result.error)")
        let lastLine = result.output.split(separator: "\n").last.map(String.init) ?? ""
        let summary = try JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any]
        #expect(summary?["event"] as? String == "summary")
        #expect(summary?["ok"] as? Int == 2)
        #expect(summary?["failed"] as? Int == 0)
        #expect((summary?["outputBytes"] as? Int ?? 0) > 0)
        #expect(summary?["removedFiles"] as? Int == 0)
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.count == 2, "the hidden output folder inside the input folder is not an input")
        #expect(manifest.items.allSatisfy { $0.attachments.allSatisfy { $0.url?.hasPrefix("https://cdn.example.com/x/") == true } })
    }

    @Test(
        "usage errors exit 2 with a message",
        arguments: [
            (["process"], "Missing expected argument"),
            (["process", "/nonexistent-folder", "--out", "/tmp/x"], "does not exist"),
            (["process", ".", "--out", "/tmp/x", "--jobs", "0"], "--jobs"),
            (["process", ".", "--out", "/tmp/x", "--base-url", "ftp://example.com"], "https"),
            (["process", ".", "--out", "/tmp/x", "--profile", "/nonexistent.json"], "cannot read profile"),
            (["frobnicate"], "Unexpected argument"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try CommandRunner.run(pushmedia, arguments)
        #expect(result.status == 2, "\(arguments): \(result.status) \(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("a profile with a typo is a usage error naming the key")
    func badProfile() throws {
        let folder = try Fixtures.temporaryFolder()
        let profile = folder.appendingPathComponent("p.yaml")
        try Data("thumbnail:\n  sise: 200\n".utf8).write(to: profile)
        let result = try CommandRunner.run(
            pushmedia, ["process", Fixtures.root.path, "--out", folder.appendingPathComponent("o").path, "--profile", profile.path])
        #expect(result.status == 2)
        #expect(result.error.contains("sise"))
    }

    @Test(
        "a profile value that could trap is a usage error naming it, for process and enqueue",
        arguments: [
            ("jpeg: {quality: 0}\n", "jpeg.quality must be in 1…100, got 0"),
            ("audio:\n  bitRate: 0\n", "audio.bitRate"),
            ("delivery: {seconds: .nan}\n", "delivery.seconds"),
            ("delivery: {seconds: 1e308}\n", "delivery.seconds"),
            ("delivery: {linkBitsPerSecond: -9223372036854775808}\n", "delivery.linkBitsPerSecond"),
            ("thumbnail:\n  size: 1:0:0:0:0:0:0:0:0:0:0:0\n", "is too large"),
            ("deep", "100000 '[' or '{'"),
        ])
    func crashingProfile(text: String, message: String) throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = folder.appendingPathComponent("bad.yaml")
        let contents = text == "deep" ? String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) : text
        try Data(contents.utf8).write(to: profile)
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let process = try CommandRunner.run(
            pushmedia, ["process", input.path, "--out", folder.appendingPathComponent("o").path, "--profile", profile.path])
        #expect(!process.signalled && process.status == 2, "\(process.status) \(process.error)")
        #expect(process.error.contains("\(profile.path): ") && process.error.contains(message), "\(process.error)")
        let queue = folder.appendingPathComponent("q.sqlite")
        let enqueue = try CommandRunner.run(
            pushmedia, ["enqueue", "--queue", "sqlite:\(queue.path)", "--campaign", "c", "--root", input.path, "--profile", profile.path, input.path])
        #expect(!enqueue.signalled && enqueue.status == 2, "\(enqueue.status) \(enqueue.error)")
        #expect(enqueue.error.contains(message), "\(enqueue.error)")
        #expect(!FileManager.default.fileExists(atPath: queue.path), "nothing enqueued")
    }

    @Test("a profile over 1 MiB is a usage error giving its size")
    func hugeProfile() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = folder.appendingPathComponent("huge.yaml")
        #expect(FileManager.default.createFile(atPath: profile.path, contents: nil))
        let handle = try FileHandle(forWritingTo: profile)
        try handle.truncate(atOffset: 50_000_000)
        try handle.close()
        let result = try CommandRunner.run(
            pushmedia, ["process", folder.path, "--out", folder.appendingPathComponent("o").path, "--profile", profile.path])
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains("the profile is 50000000 bytes, over the limit of 1048576 bytes"), "\(result.error)")
    }

    @Test("a profile changes the outputs")
    func profileApplies() throws {
        let input = try Fixtures.temporaryFolder()
        try FileManager.default.copyItem(at: Fixtures.url("photos/landscape.jpg"), to: input.appendingPathComponent("l.jpg"))
        let out = try Fixtures.temporaryFolder()
        let profile = out.appendingPathComponent("p.json")
        try Data(#"{"thumbnail": {"size": 128}, "expanded": {"maxWidth": 600}}"#.utf8).write(to: profile)
        let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--profile", profile.path])
        #expect(result.status == 0, "\(result.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let item = try #require(manifest.item(source: "l.jpg"))
        #expect(item.attachment(.thumbnail)?.width == 128)
        #expect(item.attachment(.expanded)?.width == 600 && item.attachment(.expanded)?.height == 300)
        #expect(manifest.profile.thumbnail.size == 128)
    }

    @Test("--crop chooses the strategy and overrides the profile; a wrong value is a usage error")
    func cropFlag() throws {
        let input = try Fixtures.temporaryFolder()
        try FileManager.default.copyItem(at: Fixtures.url("photos/panorama.jpg"), to: input.appendingPathComponent("p.jpg"))
        let out = try Fixtures.temporaryFolder()
        let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--crop", "centre"])
        #expect(result.status == 0, "\(result.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.profile.crop == .centre)
        #expect(manifest.items.first?.probe?.subject == UnitPoint(x: 0.5, y: 0.5))
        let bad = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--crop", "faces"])
        #expect(bad.status == 2)
    }

    @Test("probe shows the detected type and displayed size; bad files exit 1 with their code")
    func probe() throws {
        let ok = try CommandRunner.run(pushmedia, ["probe", Fixtures.url("photos/rotated-exif6.jpg").path])
        #expect(ok.status == 0)
        #expect(ok.output.contains("format:      jpeg"))
        #expect(ok.output.contains("400x600"))
        #expect(ok.output.contains("orientation: 6"))
        let json = try CommandRunner.run(pushmedia, ["probe", "--json", Fixtures.url("photos/scene.heic").path])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect((parsed?["probe"] as? [String: Any])?["format"] as? String == "heif")
        let bad = try CommandRunner.run(pushmedia, ["probe", Fixtures.url("broken/not-an-image.jpg").path])
        #expect(bad.status == 1)
        #expect(bad.error.contains("unsupported_type"))
    }

    @Test("version names the libraries it uses")
    func version() throws {
        let result = try CommandRunner.run(pushmedia, ["version"])
        #expect(result.status == 0)
        #expect(result.output.contains("libvips 8."))
        #expect(result.output.contains("libavformat 59."))
    }

    @Test("without libvips' HEIF module (libvips found in a folder without modules) only HEIF fails, said once")
    func missingHEIFModule() throws {
        // This test process has libvips loaded: copy it to a folder with no vips-modules-8.x.
        // (/proc files report size 0: read them to their end.)
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        let libvips = try #require(
            maps.split(separator: "\n").compactMap { line in
                line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
            }.first { $0.hasSuffix("/libvips.so.42") || $0.contains("/libvips.so.42.") })
        let folder = try Fixtures.temporaryFolder()
        let lib = folder.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: lib, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: libvips, toPath: lib.appendingPathComponent("libvips.so.42").path)
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Fixtures.copy(["photos/scene.heic", "photos/landscape.jpg"], into: input)
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = lib.path
        environment["VIPSHOME"] = nil
        let out = folder.appendingPathComponent("out")
        let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path], environment: environment)
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.components(separatedBy: "cannot load libvips' HEIF module").count == 2, "\(result.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.first { $0.source.hasSuffix("landscape.jpg") }?.status == .ok)
        let heic = try #require(manifest.items.first { $0.source.hasSuffix("scene.heic") })
        #expect(heic.status == .failed)
        #expect(heic.error?.code == .unsupportedType, "\(heic.error?.code.rawValue ?? "")")
        #expect(heic.error?.message.contains("HEIF module is not available") == true, "\(heic.error?.message ?? "")")
    }
}
