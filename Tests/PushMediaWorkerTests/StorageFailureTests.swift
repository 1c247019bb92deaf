import Foundation
import PushMediaModel
import PushMediaQueue
import Testing

@testable import PushMediaWorker

/// A full output disk ends `process` with exit 2 (no hang, no half files), and a rerun once
/// there is space finishes the batch; a worker that meets one reports unhealthy.
@Suite("Storage failures")
struct StorageFailureTests {
    /// Noise JPEGs: their outputs stay large, so a small disk fills after a few items.
    static func noisyPhotos(_ count: Int, in folder: URL) async throws -> URL {
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let made = try await Support.run(
            "/usr/bin/env",
            [
                "ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=1200x800:r=1",
                "-vf", "noise=alls=100:allf=t", "-frames:v", "\(count)", "-q:v", "2", input.appendingPathComponent("p%02d.jpg").path,
            ],
            in: folder)
        guard made.status == 0 else { throw SupportError("ffmpeg: \(made.error)") }
        return input
    }

    static func mount(_ arguments: [String], in folder: URL) async throws {
        let mounted = try await Support.run("/usr/bin/env", ["mount"] + arguments, in: folder, timeout: 60)
        guard mounted.status == 0 else { throw SupportError("mount \(arguments): \(mounted.error)") }
    }

    // Mounting a tmpfs needs root (CI runs as root).
    @Test(
        "--out on a 2 MB tmpfs: exit 2 naming the folder, no manifest, no half files; with space, the rerun completes",
        .enabled(if: geteuid() == 0))
    func fullOutputDisk() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Self.noisyPhotos(8, in: folder)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try await Self.mount(["-t", "tmpfs", "-o", "size=2m", "tmpfs", out.path], in: folder)
        defer { _ = try? Process.run(URL(fileURLWithPath: "/usr/bin/env"), arguments: ["umount", "-l", out.path]) }

        let full = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path, "--jobs", "2"], in: folder, timeout: 300)
        #expect(full.status == 2, "\(full.status): \(full.error.suffix(2000))")
        #expect(full.error.contains("error: cannot write ") && full.error.contains(out.path), "\(full.error.suffix(2000))")
        #expect(full.error.contains("No space left on device") || full.error.contains("full"), "\(full.error.suffix(2000))")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains { $0.hasSuffix(".tmp") }, "half-written files left: \(names)")

        // Space again (a tmpfs keeps its files when it grows): the same command finishes the batch.
        try await Self.mount(["-o", "remount,size=64m", out.path], in: folder)
        let rerun = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path, "--jobs", "2"], in: folder, timeout: 300)
        #expect(rerun.status == 0, "\(rerun.status): \(rerun.error.suffix(2000))")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == (1...8).map { String(format: "p%02d.jpg", $0) })
        for item in manifest.items {
            #expect(item.status == .ok && item.attachments.count == 2, "\(item.source): \(String(describing: item.error))")
            for attachment in item.attachments {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(attachment.file).path))
            }
        }
    }

    @Test("an output folder that cannot be created, and a folder another run is using, are exit 2 with a message")
    func setUpFailuresAreExitTwo() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "64x64", in: folder)
        // A file where the output folder should be.
        let blocked = folder.appendingPathComponent("blocked")
        try Data("x".utf8).write(to: blocked)
        let run = try await Support.run(
            Support.pushmedia, ["process", input.path, "--out", blocked.appendingPathComponent("out").path], in: folder, timeout: 120)
        #expect(run.status == 2, "\(run.status): \(run.error)")
        #expect(run.error.contains(blocked.path), "\(run.error)")
    }

    @Test("/healthz: 200 ok while healthy, 503 with the failure while backing off")
    func healthAnswers() {
        let ok = MetricsHTTPHandler.healthAnswer(.ok)
        #expect(ok.0.code == 200 && String(decoding: ok.1, as: UTF8.self) == "ok\n")
        let failing = MetricsHTTPHandler.healthAnswer(
            .failing(reason: "cannot write to /srv/out: No space left on device", failures: 3, since: Date().addingTimeInterval(-42)))
        let text = String(decoding: failing.1, as: UTF8.self)
        #expect(failing.0.code == 503)
        #expect(text.hasPrefix("unhealthy: 3 failures in a row for 42 s") && text.contains("No space left on device"), "\(text)")
    }
}
