import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Movies and audio end to end: real inputs (committed, or made with the ffmpeg CLI), processed
/// by the pipeline, and the outputs probed again with ffprobe.
@Suite("Movies and audio: poster frames, keep, remux, transcode")
struct MediaPipelineTests {
    static func process(_ input: URL, source: String? = nil, profile: Profile = .default, out: URL) -> Item {
        ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: out))
            .process(InputFile(path: input.path, source: source ?? input.lastPathComponent))
    }

    static func file(_ attachment: PushMediaModel.Attachment?, in out: URL) throws -> URL {
        out.appendingPathComponent(try #require(attachment).file)
    }

    /// No temporary files are left in the output folder.
    static func expectNoLeftovers(_ out: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard FileManager.default.fileExists(atPath: out.path) else { return }
        let hidden = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "left behind: \(hidden)", sourceLocation: sourceLocation)
    }

    @Test("a clip that starts black: the poster is a later, non-black frame; the MP4 is kept as is")
    func blackStart() throws {
        let out = try Fixtures.temporaryFolder()
        let input = Fixtures.url("video/black-start.mp4")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        let time = try #require(media.options.thumbnailTime)
        #expect(time >= 1.0 && time <= 2.0, "poster at \(time) s; the first second is black")
        for role in [PushMediaModel.Attachment.Role.thumbnail, .expanded] {
            let image = try OutputInspection.image(try #require(item.attachment(role)), in: out)
            let deviation = try image.deviation()
            #expect(deviation > 20, "\(role) is flat (black)")
        }
        let thumb = try #require(item.attachment(.thumbnail))
        #expect(thumb.width == 180 && thumb.height == 180)
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 320 && expanded.height == 160 && expanded.options.thumbnailClippingRect != nil)
        // Kept: the same bytes.
        #expect(media.media?.action == .kept && media.typeHint == "public.mpeg-4")
        #expect(media.sha256 == item.sourceSHA256)
        let written = try Data(contentsOf: Self.file(media, in: out))
        #expect(written == (try Data(contentsOf: input)))
    }

    @Test("a MOV whose pixel aspect only its container gives: the remuxed MP4 keeps it, streams not re-encoded")
    func containerSampleAspectRemuxed() throws {
        let out = try Fixtures.temporaryFolder()
        let square = try MediaFactory.make(
            "square.mp4", in: out,
            [
                "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-t", "1", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-c:a", "aac",
            ])
        // A stream copy with -aspect: the H.264 stream still says square pixels; MOV's header says 2:1.
        let input = try MediaFactory.make("wide-pixels.mov", in: out, ["-i", square.path, "-c", "copy", "-aspect", "32:9"])
        #expect(try MediaFactory.probe(input).video?["sample_aspect_ratio"] as? String == "2:1")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        #expect(media.media?.action == .remuxed && media.fileExtension == "mp4")
        let file = try Self.file(media, in: out)
        let probed = try MediaFactory.probe(file)
        #expect(probed.video?["sample_aspect_ratio"] as? String == "2:1", "\(probed.video ?? [:])")
        #expect(probed.video?["display_aspect_ratio"] as? String == "32:9")
        #expect(try MediaFactory.packetHash(file, stream: "v") == (try MediaFactory.packetHash(input, stream: "v")))
        // The poster is drawn at the display size: 640×180, so the expanded image is 2:1 of that.
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 360 && expanded.height == 180)
    }

    @Test("a rotated phone MOV: portrait poster, MP4 output with the rotation, streams not re-encoded")
    func rotatedMOV() throws {
        let out = try Fixtures.temporaryFolder()
        let input = Fixtures.url("video/portrait.mov")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        // The poster is upright: 180 wide, so the expanded image is 180 wide too.
        let expanded = try #require(item.attachment(.expanded))
        #expect(expanded.width == 180 && expanded.height == 90)
        let media = try #require(item.attachment(.media))
        #expect(media.media?.action == .remuxed && media.fileExtension == "mp4")
        #expect(media.width == 180 && media.height == 320)
        let file = try Self.file(media, in: out)
        let probed = try MediaFactory.probe(file)
        #expect(probed.formatName.contains("mp4"))
        #expect(probed.video?["codec_name"] as? String == "h264" && probed.video?["width"] as? Int == 320)
        let original = try MediaFactory.probe(input)
        #expect(original.rotation != 0 && probed.rotation == original.rotation && probed.rotation == item.probe?.rotation)
        #expect(abs(probed.duration - 2) < 0.5)
        for stream in ["v", "a"] {
            let written = try MediaFactory.packetHash(file, stream: stream)
            let original = try MediaFactory.packetHash(input, stream: stream)
            #expect(written == original, "stream \(stream) was re-encoded")
        }
        // faststart: the movie header comes before the media data.
        let head = try FileHandle(forReadingFrom: file).read(upToCount: 64 * 1024) ?? Data()
        let moov = try #require(head.range(of: Data("moov".utf8)))
        if let mdat = head.range(of: Data("mdat".utf8)) { #expect(moov.lowerBound < mdat.lowerBound) }
        try Self.expectNoLeftovers(out)
    }

    @Test("a VP9 WebM becomes H.264 + AAC in MP4 of the same size and duration")
    func webm() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(
            "clip.webm", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=3", "-f", "lavfi", "-i", "sine=f=330:d=3",
                "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "400k", "-c:a", "libopus",
            ])
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        #expect(media.media?.action == .transcoded && media.typeHint == "public.mpeg-4")
        #expect(item.warnings.contains { $0.contains("vp9") })
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        #expect(probed.formatName.contains("mp4"))
        #expect(probed.video?["codec_name"] as? String == "h264")
        #expect(probed.video?["width"] as? Int == 640 && probed.video?["height"] as? Int == 360)
        #expect(probed.audio?["codec_name"] as? String == "aac")
        #expect(abs(probed.duration - 3) < 0.5, "duration \(probed.duration)")
        #expect(media.bytes <= 10_000_000)
        try Self.expectNoLeftovers(out)
    }

    @Test(
        "anamorphic video (pixels twice as wide as tall) is planned at the size it is written: square pixels, and the bit-rate ceiling of that size")
    func anamorphic() throws {
        let folder = try Fixtures.temporaryFolder()
        // 640×360 stored, each pixel twice as wide as tall (in MPEG-4 part 2's own header, which
        // iOS does not play): 1280×360 on screen.
        let input = try MediaFactory.make(
            "wide.avi", in: folder,
            ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=2", "-vf", "setsar=2", "-an", "-c:v", "mpeg4", "-q:v", "4"])
        let source = try MediaFactory.probe(input)
        #expect(source.video?["sample_aspect_ratio"] as? String == "2:1", "\(source.video ?? [:])")
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        #expect(media.media?.action == .transcoded)
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        let width = try #require(probed.video?["width"] as? Int)
        let height = try #require(probed.video?["height"] as? Int)
        #expect(width == 1280 && height == 360, "written \(width)×\(height)")
        #expect(["1:1", nil].contains(probed.video?["sample_aspect_ratio"] as? String))
        #expect(media.width == width && media.height == height)
        // Two seconds fit the budget many times over: the rate is the ceiling, for the size written.
        let ceiling = Int(Double(width * height) * 25 * BitRatePlan.bitsPerPixelCeiling)
        #expect(media.media?.videoBitRate == ceiling, "planned \(media.media?.videoBitRate ?? 0) bit/s")
        try Self.expectNoLeftovers(out)
    }

    @Test("a WebM whose aspect is set only in the container (Matroska's display size) is written at that aspect")
    func containerAspect() throws {
        let folder = try Fixtures.temporaryFolder()
        // 640×480 stored, shown 16:9 (DisplayWidth/DisplayHeight): VP9's own header says square.
        let input = try MediaFactory.make(
            "wide.webm", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=s=640x480:r=25:d=2", "-an", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                "-cpu-used", "8", "-b:v", "300k", "-aspect", "16:9",
            ])
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        let width = try #require(probed.video?["width"] as? Int)
        let height = try #require(probed.video?["height"] as? Int)
        #expect(width == 852 && height == 480, "written \(width)×\(height)")
        #expect(["1:1", nil].contains(probed.video?["sample_aspect_ratio"] as? String))
        #expect(media.width == width && media.height == height)
    }

    @Test("an MP4 far over 50 MB is transcoded to 720p within what the notification's delivery budget leaves")
    func hugeMP4() throws {
        let folder = try Fixtures.temporaryFolder()
        // 8 s of 1080p at a constant 60 Mbit/s (filler padded): about 60 MB.
        let input = try MediaFactory.make(
            "huge.mp4", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=8", "-f", "lavfi", "-i", "sine=d=8",
                "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "60M", "-minrate", "60M", "-maxrate", "60M",
                "-bufsize", "60M", "-x264-params", "nal-hrd=cbr", "-c:a", "aac",
            ])
        let inputBytes = try #require(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        #expect(inputBytes > 50_000_000, "the input is only \(inputBytes) bytes")
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        // The movie takes what the poster's two iOS images leave of the notification's 2.5 MB
        // (the Android image is downloaded by Android alone).
        let images = item.attachments.filter { $0.role != .media && $0.role != .android }.reduce(0) { $0 + $1.bytes }
        let target = Profile.default.delivery
        let budget = try #require(media.budget)
        #expect(images > 0 && budget == target.notificationBytes - images)
        #expect(media.bytes <= budget)
        let delivery = try #require(item.delivery)
        #expect(delivery.bytes == images + media.bytes && delivery.bytes <= target.notificationBytes)
        #expect(delivery.seconds <= target.seconds && delivery.budget == 2_500_000 && delivery.linkBitsPerSecond == 1_000_000)
        #expect(media.media?.action == .transcoded && (media.media?.videoBitRate ?? 0) > 0)
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        #expect(probed.video?["codec_name"] as? String == "h264")
        #expect(probed.video?["width"] as? Int == 1280 && probed.video?["height"] as? Int == 720)
        #expect(abs(probed.duration - 8) < 0.5, "duration \(probed.duration)")
        try Self.expectNoLeftovers(out)
    }

    @Test("MP3 within budget is kept byte for byte")
    func mp3Kept() throws {
        let out = try Fixtures.temporaryFolder()
        let item = Self.process(Fixtures.url("audio/tone.mp3"), out: out)
        let media = try #require(item.attachment(.media))
        #expect(media.media?.action == .kept && media.typeHint == "public.mp3" && media.fileExtension == "mp3")
        #expect(media.sha256 == item.sourceSHA256)
        #expect(item.attachments.count == 1, "no cover art, no images")
        #expect(media.options.thumbnailTime == nil)
    }

    @Test("Opus in Ogg becomes AAC in M4A")
    func opus() throws {
        let out = try Fixtures.temporaryFolder()
        let item = Self.process(Fixtures.url("audio/tone.opus.ogg"), out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        #expect(media.typeHint == "com.apple.m4a-audio" && media.fileExtension == "m4a")
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        #expect(probed.formatName.contains("m4a") || probed.formatName.contains("mp4"))
        #expect(probed.audio?["codec_name"] as? String == "aac" && probed.video == nil)
        #expect(abs(probed.duration - 2) < 0.5)
    }

    @Test("a long WAV over 5 MB becomes an M4A within 5 MB")
    func longWAV() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(
            "long.wav", in: folder, ["-f", "lavfi", "-i", "sine=f=440:d=40", "-ac", "2", "-ar", "44100", "-c:a", "pcm_s16le"])
        let inputBytes = try #require(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        #expect(inputBytes > 5_000_000)
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        let media = try #require(item.attachment(.media))
        #expect(media.fileExtension == "m4a" && media.bytes <= 5_000_000)
        #expect(item.warnings.contains { $0.contains("over the audio budget") })
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        #expect(probed.audio?["codec_name"] as? String == "aac")
        #expect(abs(probed.duration - 40) < 0.5, "duration \(probed.duration)")
    }

    @Test("a small WAV within budget is kept")
    func wavKept() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make("short.wav", in: folder, ["-f", "lavfi", "-i", "sine=d=1", "-c:a", "pcm_s16le"])
        let item = Self.process(input, out: folder.appendingPathComponent("out"))
        #expect(item.attachment(.media)?.media?.action == .kept && item.attachment(.media)?.typeHint == "com.microsoft.waveform-audio")
    }

    @Test("audio with cover art: the art becomes the thumbnail and expanded image")
    func coverArt() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.mp3WithCoverArt(in: folder)
        let out = folder.appendingPathComponent("out")
        let item = Self.process(input, out: out)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect(item.kind == .audio && item.probe?.hasCoverArt == true)
        let thumb = try #require(item.attachment(.thumbnail))
        let expanded = try #require(item.attachment(.expanded))
        #expect(thumb.width == 300 && thumb.height == 300)
        #expect(expanded.width == 1200 && expanded.height == 600 && expanded.options.thumbnailClippingRect != nil)
        let image = try OutputInspection.image(thumb, in: out)
        let deviation = try image.deviation()
        #expect(image.width == 300 && deviation > 10)
        #expect(item.attachment(.media)?.fileExtension == "mp3")
    }

    @Test("a fade-in: the poster is taken once the picture is up, not from the dim start")
    func fadeIn() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(
            "fade.mp4", in: folder,
            ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4,fade=t=in:st=0:d=2", "-c:v", "libx264", "-preset", "ultrafast"])
        let item = Self.process(input, out: folder.appendingPathComponent("out"))
        let time = try #require(item.attachment(.media)?.options.thumbnailTime)
        #expect(time >= 1.5, "poster at \(time) s is inside the fade")
    }

    @Test("too long for the budget: over_budget, or trimmed with a warning when the profile allows")
    func trimming() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(
            "clip.webm", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3", "-f", "lavfi", "-i", "sine=d=3",
                "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus",
            ])
        var profile = Profile.default
        profile.budgets.movie = 100_000
        let refused = Self.process(input, profile: profile, out: folder.appendingPathComponent("a"))
        #expect(refused.error?.code == .overBudget, "\(refused.error?.message ?? "")")
        #expect(refused.error?.message.contains("trimToSeconds") == true)

        profile.video.trimToSeconds = 2
        let out = folder.appendingPathComponent("b")
        let trimmed = Self.process(input, profile: profile, out: out)
        #expect(trimmed.status == .ok, "\(trimmed.error?.message ?? "")")
        let media = try #require(trimmed.attachment(.media))
        #expect(media.bytes <= 100_000 && media.media?.trimmedToSeconds == 2)
        #expect(trimmed.warnings.contains { $0.contains("trimmed to the first 2 s") })
        let probed = try MediaFactory.probe(try Self.file(media, in: out))
        #expect(abs(probed.duration - 2) < 0.5, "duration \(probed.duration)")
        try Self.expectNoLeftovers(out)
    }

    @Test("limits: too_long from the probe; a time limit stops the work with nothing left behind")
    func limits() throws {
        let folder = try Fixtures.temporaryFolder()
        var profile = Profile.default
        profile.limits.maxDurationSeconds = 1
        let long = Self.process(Fixtures.url("video/black-start.mp4"), profile: profile, out: folder.appendingPathComponent("a"))
        #expect(long.error?.code == .tooLong)

        let input = try MediaFactory.make(
            "clip.webm", in: folder,
            ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=30", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"])
        profile = .default
        profile.limits.mediaTimeoutSeconds = 0.3
        let out = folder.appendingPathComponent("b")
        let slow = Self.process(input, profile: profile, out: out)
        #expect(slow.error?.code == .timeout, "\(slow.error?.message ?? "")")
        try Self.expectNoLeftovers(out)
    }

    @Test("fuzzed movies and audio (seeded byte flips and cuts) end ok or with a known error code, never a crash")
    func fuzzed() throws {
        let folder = try Fixtures.temporaryFolder()
        var rng = SeededRandom(seed: 4242)
        let known: Set<ErrorCode> = [.corruptInput, .noMediaStream, .unsupportedType, .encodeFailed, .tooLong, .tooManyPixels, .overBudget]
        for source in ["video/black-start.mp4", "video/portrait.mov", "audio/tone.mp3", "audio/tone.opus.ogg"] {
            let original = [UInt8](try Data(contentsOf: Fixtures.url(source)))
            for round in 0..<6 {
                var bytes = original
                // Flip bytes past the first 16 (so the type is still recognised), sometimes cut the end.
                for _ in 0..<(1 + Int(rng.next() % 40)) {
                    let at = 16 + Int(rng.next() % UInt64(bytes.count - 16))
                    bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                }
                if round % 2 == 1 { bytes = Array(bytes.prefix(16 + Int(rng.next() % UInt64(bytes.count - 16)))) }
                let name = "fuzz-\(round)-" + (source as NSString).lastPathComponent
                let input = folder.appendingPathComponent(name)
                try Data(bytes).write(to: input)
                let out = folder.appendingPathComponent("out-\(round)")
                let item = Self.process(input, out: out)
                if item.status == .failed {
                    let code = try #require(item.error?.code)
                    #expect(known.contains(code), "\(name): \(code) \(item.error?.message ?? "")")
                } else {
                    #expect(item.attachment(.media) != nil, "\(name) is ok without its media file")
                }
                try Self.expectNoLeftovers(out)
            }
        }
    }
}
