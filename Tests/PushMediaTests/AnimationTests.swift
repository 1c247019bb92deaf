import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Animated GIFs")
struct AnimationTests {
    @Test("with an animated thumbnail, an animated GIF stays animated in both: frames, delays, loop; ThumbnailTime skips the blank frames")
    func staysAnimated() throws {
        var profile = Profile()
        profile.animation.stillThumbnail = false
        let (item, out) = try ImagePipelineTests.process("graphics/animated.gif", profile: profile)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .animatedImage)
        #expect(item.probe?.frames == 24)
        #expect(abs((item.probe?.durationSeconds ?? 0) - 1.92) < 0.001)
        for role in [Attachment.Role.thumbnail, .expanded] {
            let attachment = try #require(item.attachment(role))
            #expect(attachment.fileExtension == "gif" && attachment.typeHint == "com.compuserve.gif")
            #expect(attachment.frames == 24)
            // Re-read the GIF: every frame, its delays and loop count.
            let data = try Data(contentsOf: out.appendingPathComponent(attachment.file))
            let gif = try GIFReader.read(data)
            #expect(gif.frames == 24)
            #expect(gif.delays.reduce(0, +) == 1920)
            #expect(gif.loop == 0)
            #expect(gif.width == attachment.width && gif.frameHeight == attachment.height)
            // Frames 0–3 of the fixture are black; the representative frame is the first with content.
            let time = try #require(attachment.options.thumbnailTime)
            #expect(time == 4)
            let frame = try gif.frame(Int(time))
            #expect(try frame.extractBands(0, count: 3).deviation() > 10, "the ThumbnailTime frame is blank")
            #expect(try gif.frame(0).extractBands(0, count: 3).deviation() < 1)
        }
        #expect(try #require(item.attachment(.expanded)).width == 320)
        #expect(try #require(item.attachment(.thumbnail)).width == 200)
    }

    @Test("by default the thumbnail is a still JPEG of the representative frame; the expanded GIF's ThumbnailTime names that frame")
    func stillThumbnail() throws {
        let (item, out) = try ImagePipelineTests.process("graphics/animated.gif")
        let thumb = try #require(item.attachment(.thumbnail))
        #expect(thumb.fileExtension == "jpg" && thumb.frames == nil)
        #expect(thumb.budget == Profile.default.budgets.thumbnail)
        let image = try OutputInspection.image(thumb, in: out)
        #expect(try image.extractBands(0, count: 3).deviation() > 10)
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.fileExtension == "gif" && expanded.frames == 24)
        #expect(expanded.options.thumbnailTime == 4)
        // The still is that frame: its centre matches the GIF frame's centre closely.
        let gif = try GIFReader.read(Data(contentsOf: out.appendingPathComponent(expanded.file)))
        #expect(try gif.frame(4).extractBands(0, count: 3).deviation() > 10)
    }

    @Test("a big animated GIF of noise (made here, over 10 MB) fits its budget, stays animated, keeps its duration")
    func bigAnimation() throws {
        let folder = try Fixtures.temporaryFolder()
        let source = folder.appendingPathComponent("big.gif")
        let frames = try (0..<40).map { try Vips.Image.noise(width: 600, height: 380, sigma: 60, seed: $0) }
        let delays = (0..<40).map { $0 % 3 == 0 ? 50 : 70 }
        try Vips.Image.animation(frames: frames, delays: delays, loop: 0).gifData(paletteBits: 8).write(to: source)
        let inputBytes = try FileManager.default.attributesOfItem(atPath: source.path)[.size] as! Int
        #expect(inputBytes > 10_000_000, "input is only \(inputBytes) bytes")

        // This test is about the budget, not speed: a generous time limit, so parallel tests
        // on a loaded machine cannot turn it into a timeout.
        var profile = Profile.default
        profile.limits.timeoutSeconds = 600
        let item = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: source.path, source: "big.gif"))
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let duration = Double(delays.reduce(0, +)) / 1000
        // The thumbnail is one still frame within the thumbnail budget; the expanded GIF is the animation.
        let thumbnail = try #require(item.attachment(.thumbnail))
        #expect(thumbnail.fileExtension == "jpg" && thumbnail.bytes <= Profile.default.budgets.thumbnail)
        for attachment in item.attachments where attachment.fileExtension == "gif" {
            let data = try Data(contentsOf: folder.appendingPathComponent(attachment.file))
            // The expanded GIF is an image FCM shows: within 5 s at 1 Mbit/s (625 KB), below the
            // animated budget.
            let budget = try #require(attachment.budget)
            #expect(budget == Profile.default.delivery.imageBytes && budget < Profile.default.budgets.animated)
            #expect(data.count <= budget)
            let gif = try GIFReader.read(data)
            #expect(gif.frames >= 2, "no longer animated")
            #expect(abs(Double(gif.delays.reduce(0, +)) / 1000 - duration) <= duration * 0.05)
            #expect(attachment.encoding?.framesTotal == 40)
        }
        #expect(item.warnings.contains { $0.contains("dropped frames") || $0.contains("colours") })
        #expect((item.delivery?.bytes ?? .max) <= Profile.default.delivery.notificationBytes)
    }

    @Test("every pass over frames libvips decodes stops at the animation's deadline: the writer, a frame, the proxies")
    func libvipsFramesStopAtTheDeadline() throws {
        let path = try Fixtures.url("graphics/animated.gif").path
        func animation(_ deadline: Deadline) throws -> Animation {
            // As the decode stage opens a GIF through libvips: the decode carries the deadline.
            let open = { () throws -> Vips.Image in
                let decoded = try Vips.Image.thumbnail(
                    from: Vips.Source(path: path), width: 4096, height: 4096, allPages: true, colourManaged: false)
                decoded.stopEvaluation(at: deadline)
                return try decoded.srgb8()
            }
            let header = try open()
            let frames = header.height / header.pageHeight
            return Animation(
                frames: .decode(open), frameSize: PixelSize(width: header.width, height: header.pageHeight),
                delays: Array(repeating: 100, count: frames), loop: 0, deadline: deadline)
        }
        let passed = try animation(.now - .seconds(1))
        #expect(throws: Vips.Error.self) { try passed.gifData(GIFSettings(paletteBits: 8)) }
        #expect(throws: Vips.Error.self) { try passed.frame(1) }
        #expect(throws: Vips.Error.self) { try passed.proxies([0, 1], longSide: 16) }
        let later = try animation(.now + .seconds(600))
        #expect(try later.gifData(GIFSettings(paletteBits: 8)).data.count > 0)
        #expect(try later.frame(1).width == later.size.width)
        #expect(try later.proxies([0, 1], longSide: 16).count == 2)
    }
}

/// Reads a GIF back with libvips (all frames).
struct GIFReader {
    var image: Vips.Image
    var frames: Int
    var delays: [Int]
    var loop: Int
    var width: Int
    var frameHeight: Int

    static func read(_ data: Data) throws -> GIFReader {
        let folder = try Fixtures.temporaryFolder()
        let path = folder.appendingPathComponent("read.gif").path
        try data.write(to: URL(fileURLWithPath: path))
        try Vips.start()
        let image = try Vips.Image.header(from: Vips.Source(path: path), failOn: .error, allPages: true).copyMemory()
        let frames = image.int(field: "n-pages") ?? 1
        return GIFReader(
            image: image, frames: frames, delays: image.intArray(field: "delay") ?? [], loop: image.int(field: "loop") ?? -1,
            width: image.width, frameHeight: image.pageHeight)
    }

    func frame(_ index: Int) throws -> Vips.Image {
        try image.extractArea(left: 0, top: index * frameHeight, width: width, height: frameHeight)
    }
}
