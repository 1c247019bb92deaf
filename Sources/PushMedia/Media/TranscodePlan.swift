import PushMediaModel

/// Pure: what a transcode writes, decided here and carried out as it is by FFmpeg
/// (`pm_av_transcode`): the video's size (square pixels, the long side capped, even sides), its
/// frame rate and keyframe interval, libx264's settings, and the audio's sample rate and
/// channels. The bit rates come from ``BitRatePlan``, planned for this size and rate, and change
/// from attempt to attempt; the rest does not.
struct TranscodePlan: Equatable {
    /// A rate or ratio as FFmpeg keeps it.
    struct Ratio: Equatable {
        var numerator: Int
        var denominator: Int
        /// As `av_q2d` computes it.
        var value: Double { Double(numerator) / Double(denominator) }
    }

    /// What the source's video stream is, as FFmpeg reads it (``FFmpeg/MediaFile/videoSource(stream:)``).
    struct VideoSource: Equatable {
        /// The coded size: pixels as stored.
        var width: Int
        var height: Int
        /// The sample aspect ratio: the width of one stored pixel over its height; nil when the
        /// file gives none (square pixels).
        var sampleAspect: Ratio?
        /// FFmpeg's guess of the frame rate (`av_guess_frame_rate`); nil when it has none.
        var frameRate: Ratio?
    }

    /// The frame rate written.
    enum FrameRate: Equatable {
        /// The source's rate (or ``defaultFrameRate``), as it is.
        case exactly(Ratio)
        /// The profile's cap, as FFmpeg's nearest ratio (`av_d2q`) to it.
        case capped(Double)

        var perSecond: Double {
            switch self {
            case .exactly(let rate): rate.value
            case .capped(let rate): rate
            }
        }
    }

    struct Video: Equatable {
        /// The size written, display-corrected: square pixels, even sides.
        var size: PixelSize
        var frameRate: FrameRate
        /// A frame closer than this (seconds) to the last one kept is dropped (0: none).
        var minimumFrameGap: Double
        /// Frames from one keyframe to the next, at most.
        var keyframeInterval: Int
        /// libx264's preset and profile.
        var preset: String
        var profile: String
        /// libx264's threads: ``encoderThreads``.
        var encoderThreads: Int
    }

    struct Audio: Equatable {
        var sampleRate: Int
        var channels: Int
    }

    var video: Video?
    var audio: Audio?

    /// The rate written when the source gives none.
    static let defaultFrameRate = Ratio(numerator: 30, denominator: 1)
    /// A keyframe at least this often (seconds): where a player can start.
    static let keyframeSeconds = 2.0
    /// H.264 High: what every iPhone and Android phone since 2013 decodes.
    static let x264Profile = "high"
    /// One libx264 thread. With frame threads, VBV rate control decides each frame's size from
    /// whichever frames the other threads have finished, so two runs give different bytes (and
    /// `threads=auto` differs again by core count); one thread gives the same bytes on every run
    /// and machine. It costs no CPU time (docs/usage.md has the figures) and a worker already
    /// runs items side by side on the other cores.
    static let encoderThreads = 1
    /// Frames are dropped to a frame-rate cap when closer than this share of the capped interval
    /// (a little less than the whole, so jitter in a source at the cap drops nothing).
    static let frameGapShare = 0.9
    /// The sample rates the AAC encoder takes; the input's is kept when it is one of them.
    static let aacSampleRates = [48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]
    static let defaultSampleRate = 48000

    /// The video a source's stream becomes under `profile`: its display size (the sample aspect
    /// ratio applied to the width) scaled so the long side is at most `maxLongSide`, sides
    /// rounded down to even (4:2:0) and at least 2; the source's frame rate, or
    /// ``defaultFrameRate``, capped at `maxFrameRate`.
    static func video(_ source: VideoSource, profile: Profile.Video) -> Video {
        let displayWidth = Double(source.width) * (source.sampleAspect?.value ?? 1)
        let displayHeight = Double(source.height)
        let longSide = max(displayWidth, displayHeight)
        let scale = profile.maxLongSide > 0 && longSide > Double(profile.maxLongSide) ? Double(profile.maxLongSide) / longSide : 1
        func even(_ side: Double) -> Int { max(2, Int(side * scale + 0.5) & ~1) }
        var rate = FrameRate.exactly(source.frameRate ?? defaultFrameRate)
        if profile.maxFrameRate > 0 && rate.perSecond > profile.maxFrameRate { rate = .capped(profile.maxFrameRate) }
        return Video(
            size: PixelSize(width: even(displayWidth), height: even(displayHeight)), frameRate: rate,
            minimumFrameGap: profile.maxFrameRate > 0 ? frameGapShare / profile.maxFrameRate : 0,
            keyframeInterval: Int(keyframeSeconds * rate.perSecond + 0.5), preset: profile.preset, profile: x264Profile,
            encoderThreads: encoderThreads)
    }

    /// The audio a source's stream of `sampleRate` and `channels` becomes: its rate when AAC
    /// takes it, else ``defaultSampleRate``; stereo from two channels or more, else mono.
    static func audio(sampleRate: Int?, channels: Int?) -> Audio {
        let rate = sampleRate.flatMap { aacSampleRates.contains($0) ? $0 : nil } ?? defaultSampleRate
        return Audio(sampleRate: rate, channels: (channels ?? 1) >= 2 ? 2 : 1)
    }

    /// libx264's rate control for an average of `bitRate` bits/s: a VBV peak of 1.5 times it over
    /// a buffer of 2 seconds' worth keeps the rate close to the target, so the size is predictable.
    static func rateControl(bitRate: Int) -> (maxRate: Int, bufferSize: Int) {
        (bitRate * 3 / 2, bitRate * 2)
    }

    /// The pixels per second of the video written, for ``BitRatePlan/movie(budget:duration:hasAudio:pixelsPerSecond:profile:)``.
    var pixelsPerSecond: Double {
        guard let video else { return 0 }
        return Double(video.size.width * video.size.height) * video.frameRate.perSecond
    }
}
