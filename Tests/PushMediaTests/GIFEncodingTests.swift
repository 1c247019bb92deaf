import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// Smaller GIFs at the same look (inter-frame optimisation, no dithering,
/// a reused palette, a frame-rate cap) and animations in bounded memory (frames decoded a few at a
/// time, by every pass, from the file).
@Suite("GIF encoding and memory")
struct GIFEncodingTests {
    @Test("frame-rate cap: frames merged by time slot, duration kept, at least two frames")
    func frameRateCap() {
        // 30 fps (GIF stores 3 cs) capped at 25: seven frames of ten are kept (one per 40 ms slot), not every other one.
        let thirty = FrameRateCap.merge(delays: Array(repeating: 30, count: 10), maxFramesPerSecond: 25)
        #expect(thirty.map(\.delay).reduce(0, +) == 300)
        #expect(thirty.count == 7)
        #expect(thirty.allSatisfy { $0.delay >= 30 })
        // 100 fps capped at 25: one frame per 40 ms.
        let fast = FrameRateCap.merge(delays: Array(repeating: 10, count: 100), maxFramesPerSecond: 25)
        #expect(fast.count == 25 && fast.allSatisfy { $0.delay == 40 })
        #expect(fast.map(\.position) == Array(stride(from: 0, to: 100, by: 4)))
        // Slow frames are untouched; 0 means no cap; the result stays an animation.
        #expect(FrameRateCap.merge(delays: [100, 50, 200], maxFramesPerSecond: 25).map(\.delay) == [100, 50, 200])
        #expect(FrameRateCap.merge(delays: [10, 10, 10], maxFramesPerSecond: 0).count == 3)
        #expect(FrameRateCap.merge(delays: [5, 5, 5, 5], maxFramesPerSecond: 10).count == 4)
    }

    @Test("a long GIF that changes little (product shot, moving badge): at least 2x smaller than the old settings, animated, same duration")
    func lowChange() throws {
        let folder = try Fixtures.temporaryFolder()
        let source = folder.appendingPathComponent("badge.gif")
        // A still product shot with a badge moving in a corner, as a GIF re-dithered frame by
        // frame (Pillow: a palette and Floyd–Steinberg per frame), so the still parts differ a
        // little between frames, as in GIFs made from video.
        try Fixtures.benchmarkGIF("product-badge", to: source, width: 480, height: 240, frames: 100)
        // What the old encoder made of the same frames at the same size (the expanded variant
        // of a 2:1 input is the whole frame): dithered, every pixel of every frame written.
        let input = try GIFReader.read(Data(contentsOf: source))
        #expect(input.frames == 100)
        let frames = try (0..<input.frames).map { try input.frame($0) }
        let animation = Animation(frames: frames, delays: input.delays, loop: 0)
        let old = try animation.gifData(GIFSettings.dithered(paletteBits: 8)).data.count
        let new = try animation.gifData(GIFSettings(paletteBits: 8)).data.count
        #expect(new * 2 <= old, "new settings \(new) bytes, old \(old)")

        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: source.path, source: "badge.gif"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 480 && expanded.height == 240)
        #expect(expanded.bytes * 2 <= old, "expanded \(expanded.bytes) bytes, old settings \(old)")
        let gif = try GIFReader.read(Data(contentsOf: folder.appendingPathComponent(expanded.file)))
        #expect(gif.frames >= 2)
        let duration = Double(input.delays.reduce(0, +))
        #expect(abs(Double(gif.delays.reduce(0, +)) - duration) <= duration * 0.05)
        #expect(expanded.encoding?.framesTotal == 100)
    }

    @Test("a 1200x1200, 200-frame GIF under the default limits: peak under 300 MB; still thumbnail, animated expanded GIF within the delivery budget")
    func boundedMemory() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Self.makeBadgeGIF(input.appendingPathComponent("square.gif"), width: 1200, height: 1200, frames: 200)
        let out = folder.appendingPathComponent("out")
        // 288 MP in all, with the default profile: weighed by what it costs, not refused by its size.
        let result = try CommandRunner.run("/usr/bin/time", ["-v", CommandRunner.pushmedia, "process", input.path, "--out", out.path])
        #expect(result.status == 0, "\(result.error)")
        let peak = try #require(Self.peakKilobytes(result.error), "no peak RSS in: \(result.error)")
        #expect(peak < 300 * 1024, "peak RSS \(peak / 1024) MB")

        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let item = try #require(manifest.items.first { $0.source == "square.gif" })
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect((item.delivery?.bytes ?? .max) <= Profile.default.delivery.notificationBytes)
        let thumbnail = try #require(item.attachment(.thumbnail))
        #expect(thumbnail.fileExtension == "jpg" || thumbnail.fileExtension == "png")
        #expect(thumbnail.frames == nil)
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.fileExtension == "gif")
        let gif = try GIFReader.read(Data(contentsOf: out.appendingPathComponent(expanded.file)))
        #expect(gif.frames >= 2)
        #expect(abs(Double(gif.delays.reduce(0, +)) - 8000) <= 8000 * 0.05)
    }

    @Test("the time limit stops an animation's lazy passes (libvips' kill flag): timeout, not a decode error; the next item is fine")
    func timeLimit() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // Noise that changes every pixel of every frame: ~4 s of a release build's work (a badge
        // sliding over a photo no longer takes a second since PushMedia decodes GIFs itself).
        let source = input.appendingPathComponent("noise.gif")
        let make = try CommandRunner.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=960x480:r=25", "-vf", "noise=alls=80:allf=t+u", "-frames:v", "60", source.path])
        try #require(make.status == 0, "\(make.error)")
        var profile = Profile.default
        profile.limits.timeoutSeconds = 1
        let item = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: source.path, source: "noise.gif"))
        #expect(item.error?.code == .timeout, "\(item.error?.message ?? "ok")")
        let next = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: Fixtures.url("graphics/animated.gif").path, source: "animated.gif"))
        #expect(next.status == .ok, "\(next.error?.message ?? "")")
    }

    /// `Maximum resident set size (kbytes)` from `/usr/bin/time -v`.
    static func peakKilobytes(_ report: String) -> Int? {
        guard let line = report.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") }) else { return nil }
        return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A still photo (the landscape fixture) with a red badge sliding across it, 25 fps, made by
    /// FFmpeg with one palette and ordered dithering. The palette is written next to `url`'s
    /// folder, not in it.
    static func makeBadgeGIF(_ url: URL, width: Int, height: Int, frames: Int) throws {
        let palette = url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("palette-\(width).png")
        let photo = Fixtures.url("photos/landscape.jpg").path
        let scale = "scale=\(width):\(height),setsar=1"
        let make = try CommandRunner.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", photo, "-vf", "\(scale),palettegen", palette.path])
        try #require(make.status == 0, "\(make.error)")
        let side = max(24, width / 10)
        let speed = Double(width - side - 20) * 25 / Double(frames)
        let graph = "[0]\(scale)[bg];[bg][1]overlay=x='10+\(speed)*t':y=\(height / 8)[v];[v][2]paletteuse=dither=bayer"
        let run = try CommandRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", photo, "-f", "lavfi", "-i",
                "color=c=red:s=\(side)x\(side / 2):r=25", "-i", palette.path, "-filter_complex", graph, "-frames:v", "\(frames)",
                url.path,
            ])
        try #require(run.status == 0, "\(run.error)")
    }
}
