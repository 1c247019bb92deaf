import CProcessControl
import Foundation
import PushMedia
import PushMediaModel
import Testing

/// The tiny-size matrix (`scripts/make-tiny-media`): every accepted image format at 1×1, 1×N,
/// N×1 and small odd sizes in every colour layout, animations and movies of 2×2 … 32×32, through
/// the `pushmedia` binary. A tracking pixel or a placeholder is an ordinary file in a campaign
/// folder; each must end ok (a 1×1 source gives 1×1 outputs) or failed with a code, and never
/// kill the process (a libvips assertion on a 1×1 JPEG did; swscale wrote past short rows).
@Suite("Tiny inputs")
struct TinyInputTests {
    @Test("every file of the tiny-size matrix is an item, ok or failed with a code; nothing is killed by a signal")
    func tinyMatrix() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        let made = try CommandRunner.run(
            Fixtures.packageRoot.appendingPathComponent("scripts/make-tiny-media").path, [input.path])
        try #require(made.status == 0, "make-tiny-media failed (python3-pil, ffmpeg?): \(made.error)")
        // Ordinary files beside them, which the tiny ones must not disturb.
        try Fixtures.copy(["photos/landscape.jpg", "graphics/logo-alpha.png"], into: input)
        let files = (made.output.split(separator: "\n").map(String.init) + ["landscape.jpg", "logo-alpha.png"]).sorted()
        #expect(files.count > 250)

        let out = folder.appendingPathComponent("out")
        let run = try CommandRunner.run(CommandRunner.pushmedia, ["process", input.path, "--out", out.path, "--jobs", "2"])
        #expect(!run.signalled && (run.status == 0 || run.status == 1), "status \(run.status), signalled \(run.signalled): \(run.error.suffix(3000))")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == files)
        for item in manifest.items {
            if item.status == .failed {
                #expect(item.error != nil, "\(item.source) failed without a code")
                continue
            }
            // Every output has pixels and lies within its source (never upscaled), and exists.
            let size = try #require(Self.size(of: item.source))
            let thumbnail = try #require(item.attachment(.thumbnail), "\(item.source) has no thumbnail")
            let expanded = try #require(item.attachment(.expanded), "\(item.source) has no expanded image")
            for attachment in [thumbnail, expanded] {
                let width = attachment.width ?? 0
                let height = attachment.height ?? 0
                #expect(
                    width >= 1 && height >= 1 && width <= size.width && height <= size.height,
                    "\(item.source): \(attachment.identifier) \(width)×\(height) from \(size.width)×\(size.height)")
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(attachment.file).path))
            }
            #expect(thumbnail.width == thumbnail.height, "\(item.source): the thumbnail is square")
        }
        // No item process died on one (under scripts/test, a sanitizer report ends it too).
        let crashed = manifest.items.filter { $0.error?.code == .workerCrashed }
        #expect(crashed.isEmpty, "\(crashed.map { "\($0.source): \($0.error?.message ?? "")" })")
        // Stills and animations are images PushMedia takes at every size: none may fail.
        let failedImages = manifest.items.filter { $0.status == .failed && !$0.source.hasPrefix("movie-") }
        #expect(failedImages.isEmpty, "\(failedImages.map { "\($0.source): \($0.error?.code.rawValue ?? "") \($0.error?.message ?? "")" })")
        // A 1×1 source gives 1×1 outputs.
        for item in manifest.items where item.source.contains("-1x1.") && !item.source.hasPrefix("movie-") {
            #expect(item.attachment(.thumbnail)?.width == 1 && item.attachment(.expanded)?.height == 1, "\(item.source)")
        }
    }

    @Test(
        "scripts/test's build has PushMedia's C under AddressSanitizer, so this matrix runs under it",
        .enabled(if: ProcessInfo.processInfo.environment["PUSHMEDIA_SANITIZE_C"] == "1"))
    func sanitizedWhenAsked() {
        #expect(pm_address_sanitized() == 1)
    }

    /// The size a matrix file's name gives (`…-WxH.ext`; the ordinary files', looked up).
    static func size(of name: String) -> (width: Int, height: Int)? {
        if name == "landscape.jpg" || name == "logo-alpha.png" { return (.max, .max) }
        let stem = (name as NSString).deletingPathExtension
        guard let last = stem.split(separator: "-").last else { return nil }
        let parts = last.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }
}
