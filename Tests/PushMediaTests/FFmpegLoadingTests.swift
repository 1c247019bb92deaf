import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// FFmpeg's libraries are opened on first use (`pm_ffmpeg_load`), not linked: a process that
/// meets no movie or audio file never maps them, and one that cannot open them fails only its
/// movie and audio items.
@Suite("FFmpeg opened on first use")
struct FFmpegLoadingTests {
    /// A folder holding copies of `fixtures`.
    static func folder(with fixtures: [String], _ name: String = #function) throws -> URL {
        let folder = try Fixtures.temporaryFolder(name)
        try Fixtures.copy(fixtures, into: folder)
        return folder
    }

    /// What the dynamic loader printed (`LD_DEBUG=files`) while `pushmedia arguments` ran, and
    /// the run.
    static func loads(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandRunner.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        environment.merge(extra) { $1 }
        return try CommandRunner.run(CommandRunner.pushmedia, arguments, environment: environment)
    }

    @Test("the binary needs none of FFmpeg's libraries; a folder of images never opens them")
    func imagesAlone() throws {
        let needed = try CommandRunner.run("/usr/bin/env", ["readelf", "-d", CommandRunner.pushmedia])
        #expect(needed.status == 0 && needed.output.contains("(NEEDED)"), "\(needed.error)")
        for library in ["libavformat", "libavcodec", "libavutil", "libswscale", "libswresample"] {
            #expect(!needed.output.contains("[\(library).so"), "\(library) is linked")
        }
        let input = try Self.folder(with: ["photos/landscape.jpg", "graphics/logo-alpha.png"])
        let out = try Fixtures.temporaryFolder("images-alone-out")
        let result = try Self.loads(["process", input.path, "--out", out.path])
        #expect(result.status == 0, "exit \(result.status): \(result.error.suffix(500))")
        #expect(result.error.contains("libvips.so"), "LD_DEBUG=files printed no loads")
        #expect(!result.error.contains("libavformat.so"), "libavformat was opened for images")
        #expect(!result.error.contains("libavcodec.so"), "libavcodec was opened for images")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.count == 2 && manifest.items.allSatisfy { $0.status == .ok })
    }

    @Test("a movie opens them, and is processed")
    func movieOpensThem() throws {
        let result = try Self.loads(["probe", Fixtures.url("video/black-start.mp4").path])
        #expect(result.status == 0, "exit \(result.status): \(result.error.suffix(500))")
        #expect(result.error.contains("file=libavformat.so.59 [0];  dynamically loaded by"), "\(result.error.suffix(300))")
        #expect(result.output.contains("h264") && result.output.contains("3.00 s"), "\(result.output)")
        let version = try CommandRunner.run(CommandRunner.pushmedia, ["version"])
        #expect(version.status == 0)
        #expect(version.output.contains("libavformat 59.") && version.output.contains("libswresample 4."), "\(version.output)")
    }

    @Test("without a usable libavformat only movies and audio fail, with internal_error naming it; version exits 1")
    func missingLibrary() throws {
        // A "libavformat.so.59" found first that is libavutil: it loads, but has none of
        // libavformat's functions.
        let avutil = try #require(
            ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].map { "\($0)/libavutil.so.57" }
                .first { FileManager.default.fileExists(atPath: $0) })
        let lib = try Fixtures.temporaryFolder("fake-ffmpeg")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: avutil).resolvingSymlinksInPath(), to: lib.appendingPathComponent("libavformat.so.59"))
        let input = try Self.folder(with: ["photos/landscape.jpg", "video/black-start.mp4", "audio/tone.mp3"])
        let out = try Fixtures.temporaryFolder("missing-library-out")
        let environment = ProcessInfo.processInfo.environment.merging(["LD_LIBRARY_PATH": lib.path]) { $1 }
        let result = try CommandRunner.run(CommandRunner.pushmedia, ["process", input.path, "--out", out.path], environment: environment)
        #expect(result.status == 1, "exit \(result.status): \(result.error.suffix(500))")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let byName = Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.source, $0) })
        #expect(byName["landscape.jpg"]?.status == .ok)
        for media in ["black-start.mp4", "tone.mp3"] {
            let item = try #require(byName[media])
            #expect(item.status == .failed && item.error?.code == .internalError, "\(media): \(String(describing: item.error))")
            #expect(item.error?.message.contains("libavformat.so.59 has no av") == true, "\(String(describing: item.error))")
        }
        let version = try CommandRunner.run(CommandRunner.pushmedia, ["version"], environment: environment)
        #expect(version.status == 1)
        #expect(version.output.contains("pushmedia "))
        #expect(version.error.contains("FFmpeg's libraries could not be loaded"), "\(version.error)")
    }
}
