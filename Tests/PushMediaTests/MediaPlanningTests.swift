import PushMediaModel
import Testing

@testable import PushMedia

/// The pure parts of the media pipeline: poster choice, keep/remux/transcode, bit rates.
@Suite("Media planning (pure)")
struct MediaPlanningTests {
    @Test("frame statistics: mean and deviation of luma")
    func statistics() {
        let flat = FrameStatistics(luma: [UInt8](repeating: 100, count: 64))
        #expect(flat.mean == 100 && flat.deviation == 0)
        let halves = FrameStatistics(luma: [UInt8](repeating: 0, count: 32) + [UInt8](repeating: 200, count: 32))
        #expect(halves.mean == 100 && abs(halves.deviation - 100) < 1e-9)
    }

    @Test("poster choice: black, white and flat frames lose to any usable frame")
    func blankFramesLose() {
        var chooser = PosterFrameChooser(window: 10)
        let black = chooser.offer(FrameStatistics(mean: 16, deviation: 1), at: 0)
        #expect(black && chooser.choseBlank, "a black frame is best only for lack of others")
        _ = chooser.offer(FrameStatistics(mean: 250, deviation: 2), at: 0.5)
        #expect(chooser.choseBlank)
        let picture = chooser.offer(FrameStatistics(mean: 120, deviation: 30), at: 4)
        #expect(picture && !chooser.choseBlank && chooser.best?.time == 4)
        // A flat grey frame never replaces a usable one.
        let flat = chooser.offer(FrameStatistics(mean: 128, deviation: 5), at: 5)
        #expect(!flat && chooser.best?.time == 4)
    }

    @Test("poster choice: a fade-in's dim frames lose to the full picture; earlier wins a tie")
    func fade() {
        var chooser = PosterFrameChooser(window: 4)
        // Fading in over 2 s: contrast grows with brightness, then stays.
        for step in 0...16 {
            let time = Double(step) * 0.25
            let level = min(1, time / 2)
            _ = chooser.offer(FrameStatistics(mean: 30 + 90 * level, deviation: 50 * level), at: time)
        }
        let time = chooser.best?.time ?? -1
        #expect(time >= 1.75 && time <= 2.25, "chose \(time)")
    }

    static func stream(_ type: String, _ codec: String, index: Int, tag: String? = nil) -> MediaStream {
        var s = MediaStream(index: index, type: type, codec: codec)
        s.codecTag = tag
        if type == "video" {
            s.width = 1280
            s.height = 720
        }
        return s
    }

    @Test(
        "keep, remux or transcode",
        arguments: [
            (MediaFormat.mp4, "h264", "aac", nil, 1_000_000, "keep"),
            (.mp4, "h264", "aac", nil, 20_000_000, "transcode"), // over the 10 MB budget
            (.quicktime, "h264", "aac", nil, 1_000_000, "remux"),
            (.matroska, "h264", "mp3", nil, 1_000_000, "remux"),
            (.matroska, "vp9", "opus", nil, 1_000_000, "transcode"),
            (.mp4, "h264", "opus", nil, 1_000_000, "transcode"),
            (.mp4, "hevc", "aac", "hvc1", 1_000_000, "keep"),
            (.mp4, "hevc", "aac", "hev1", 1_000_000, "remux"),
            (.avi, "h264", "mp3", nil, 1_000_000, "keep"),
            (.mpegTransportStream, "h264", "aac", nil, 1_000_000, "remux"),
        ] as [(MediaFormat, String, String, String?, Int, String)])
    func movieDecision(format: MediaFormat, video: String, audio: String, tag: String?, bytes: Int, expected: String) {
        let streams = [Self.stream("video", video, index: 0, tag: tag), Self.stream("audio", audio, index: 1)]
        let decision = MediaDecision.decide(format: format, kind: .video, streams: streams, sourceBytes: bytes, budget: 10_000_000)
        let got: String =
            switch decision.action {
            case .keep: "keep"
            case .remux: "remux"
            case .transcode: "transcode"
            }
        #expect(got == expected, "\(format) \(video)/\(audio) \(bytes) B: \(decision.reason)")
        #expect(decision.budget == 10_000_000)
    }

    @Test(
        "audio: kept when iOS plays it and it fits, else AAC in M4A",
        arguments: [
            (MediaFormat.mp3, "mp3", 1_000_000, "keep"),
            (.mp3, "mp3", 6_000_000, "transcode"),
            (.wav, "pcm_s16le", 4_000_000, "keep"),
            (.wav, "pcm_s16le", 7_000_000, "transcode"),
            (.aiff, "pcm_s16be", 1_000_000, "keep"),
            (.m4a, "aac", 1_000_000, "keep"),
            (.ogg, "opus", 100_000, "transcode"),
            (.ogg, "vorbis", 100_000, "transcode"),
            (.flac, "flac", 100_000, "transcode"),
            (.mp4, "aac", 100_000, "remux"),
        ] as [(MediaFormat, String, Int, String)])
    func audioDecision(format: MediaFormat, codec: String, bytes: Int, expected: String) {
        let decision = MediaDecision.decide(
            format: format, kind: .audio, streams: [Self.stream("audio", codec, index: 0)], sourceBytes: bytes, budget: 5_000_000)
        let got: String =
            switch decision.action {
            case .keep: "keep"
            case .remux: "remux"
            case .transcode: "transcode"
            }
        #expect(got == expected, "\(format) \(codec) \(bytes) B: \(decision.reason)")
        #expect(decision.budget == 5_000_000)
    }

    @Test("bit rates fill the budget, capped for small pictures; a lower budget lowers them")
    func movieRates() throws {
        let pixels = 1280.0 * 720 * 30
        let long = try BitRatePlan.movie(budget: 10_000_000, duration: 60, hasAudio: true, pixelsPerSecond: pixels, profile: .default)
        // (10 MB × 8 × 0.95) / 60 s − 128 kbit/s audio
        #expect(long.video == 10_000_000 * 8 * 95 / 100 / 60 - 128_000)
        #expect(long.audio == 128_000 && long.trimmedTo == nil)
        let bytes = Double(long.video + long.audio) * 60 / 8
        #expect(bytes <= 10_000_000)
        let short = try BitRatePlan.movie(budget: 10_000_000, duration: 5, hasAudio: false, pixelsPerSecond: pixels, profile: .default)
        #expect(Double(short.video) == pixels * BitRatePlan.bitsPerPixelCeiling, "no need to fill 10 MB with 5 s")
        let lower = try #require(long.lowered(bytes: 11_000_000, budget: 10_000_000, minVideo: 250_000, minAudio: 32_000))
        #expect(lower.video < long.video && Double(lower.video) <= Double(long.video) * 10 / 11)
        #expect(long.lowered(bytes: 100_000_000, budget: 10_000_000, minVideo: 250_000, minAudio: 32_000) == nil)
    }

    @Test("too long: over_budget naming the fix, or a trim when the profile allows it")
    func tooLongForBudget() throws {
        var profile = Profile.default
        #expect(throws: ItemError.self) {
            try BitRatePlan.movie(budget: 1_000_000, duration: 600, hasAudio: true, pixelsPerSecond: 1e8, profile: profile)
        }
        profile.video.trimToSeconds = 15
        let trimmed = try BitRatePlan.movie(budget: 1_000_000, duration: 600, hasAudio: true, pixelsPerSecond: 1e8, profile: profile)
        #expect(trimmed.trimmedTo == 15 && trimmed.video >= profile.video.minBitRate)
        // The movie's sound gives up bit rate before the picture does.
        let squeezed = try BitRatePlan.movie(budget: 450_000, duration: 10, hasAudio: true, pixelsPerSecond: 1e8, profile: .default)
        #expect(squeezed.audio == BitRatePlan.lowestMovieAudio)
    }

    @Test("audio bit rate: the profile's, or lower to fit, never below the floor")
    func audioRates() throws {
        #expect(try BitRatePlan.audio(budget: 5_000_000, duration: 60, profile: .default).audio == 128_000)
        let long = try BitRatePlan.audio(budget: 5_000_000, duration: 600, profile: .default)
        #expect(long.audio < 128_000 && Double(long.audio) * 600 / 8 <= 5_000_000)
        #expect(throws: ItemError.self) { try BitRatePlan.audio(budget: 5_000_000, duration: 3 * 3600, profile: .default) }
    }

    @Test("media limits from the probe: duration and frame size")
    func limits() throws {
        var probe = Probe(format: "mp4", mimeType: "video/mp4", durationSeconds: 1000)
        #expect(throws: ItemError.self) { try Profile.Limits().checkMedia(probe) }
        probe.durationSeconds = 10
        probe.width = 10000
        probe.height = 10000
        #expect(throws: ItemError.self) { try Profile.Limits().checkMedia(probe) }
        probe.width = 1920
        probe.height = 1080
        try Profile.Limits().checkMedia(probe)
    }

    @Test("transcode plan: square pixels from the sample aspect ratio, the long side capped, even sides, the frame rate capped or defaulted")
    func transcodePlan() {
        let video = Profile.Video(maxLongSide: 1280, maxFrameRate: 30)
        func ratio(_ n: Int, _ d: Int) -> TranscodePlan.Ratio { TranscodePlan.Ratio(numerator: n, denominator: d) }
        // PAL DV, 16:9 anamorphic: 720×576 stored, 1024×576 shown.
        let pal = TranscodePlan.video(
            TranscodePlan.VideoSource(width: 720, height: 576, sampleAspect: ratio(64, 45), frameRate: ratio(25, 1)), profile: video)
        #expect(pal.size == PixelSize(width: 1024, height: 576) && pal.frameRate == .exactly(ratio(25, 1)))
        #expect(pal.keyframeInterval == 50 && pal.minimumFrameGap == 0.9 / 30 && pal.profile == "high" && pal.preset == "veryfast")
        // Twice as wide on screen as stored, over the long side: scaled to 1280, sides even.
        let wide = TranscodePlan.video(
            TranscodePlan.VideoSource(width: 1001, height: 563, sampleAspect: ratio(2, 1), frameRate: ratio(60000, 1001)), profile: video)
        #expect(wide.size == PixelSize(width: 1280, height: 360) && wide.frameRate == .capped(30) && wide.keyframeInterval == 60)
        // No rate from the file: 30; a tiny frame keeps 2×2.
        let tiny = TranscodePlan.video(TranscodePlan.VideoSource(width: 1, height: 3, sampleAspect: nil, frameRate: nil), profile: video)
        #expect(tiny.size == PixelSize(width: 2, height: 2) && tiny.frameRate == .exactly(ratio(30, 1)))
        // Odd sides round down to even.
        let odd = TranscodePlan.video(TranscodePlan.VideoSource(width: 641, height: 481, sampleAspect: nil, frameRate: ratio(24, 1)), profile: video)
        #expect(odd.size == PixelSize(width: 640, height: 480))
        let plan = TranscodePlan(video: wide, audio: nil)
        #expect(plan.pixelsPerSecond == 1280 * 360 * 30)
        #expect(TranscodePlan.rateControl(bitRate: 1_000_000) == (1_500_000, 2_000_000))
    }

    @Test("transcode plan: AAC keeps a sample rate it takes, else 48 kHz; stereo from two channels or more")
    func transcodeAudio() {
        #expect(TranscodePlan.audio(sampleRate: 44_100, channels: 6) == TranscodePlan.Audio(sampleRate: 44_100, channels: 2))
        #expect(TranscodePlan.audio(sampleRate: 96_000, channels: 1) == TranscodePlan.Audio(sampleRate: 48_000, channels: 1))
        #expect(TranscodePlan.audio(sampleRate: 8_000, channels: 2) == TranscodePlan.Audio(sampleRate: 8_000, channels: 2))
        #expect(TranscodePlan.audio(sampleRate: nil, channels: nil) == TranscodePlan.Audio(sampleRate: 48_000, channels: 1))
    }
}
