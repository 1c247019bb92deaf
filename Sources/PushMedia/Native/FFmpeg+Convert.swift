import CFFmpeg
import CFFmpegShims
import Foundation

extension FFmpeg {
    /// A remux or transcode failure: the stage and FFmpeg's message.
    struct ConversionError: Swift.Error, CustomStringConvertible {
        var code: Int32
        var description: String
        var timedOut: Bool { code == FFmpeg.exit }
    }

    /// Copies the streams (no re-encode) of `input`, opened with the demuxer for its sniffed
    /// `format`, into `output`, whose extension names the container; the video written with
    /// `sampleAspect` (nil: as its stream's parameters say).
    static func remux(
        input: String, format: MediaFormat?, output: String, video: Int?, audio: Int?, sampleAspect: TranscodePlan.Ratio?,
        deadline: Deadline
    ) throws {
        try start()
        let demuxer = try FFmpeg.demuxer(for: format)
        var message = [CChar](repeating: 0, count: 512)
        let result = pm_av_remux(
            input, demuxer, output, Int32(video ?? -1), Int32(audio ?? -1), Int32(clamping: sampleAspect?.numerator ?? 0),
            Int32(clamping: sampleAspect?.denominator ?? 1), deadline.native, &message, message.count)
        guard result >= 0 else { throw ConversionError(code: result, description: string(message)) }
    }

    /// What one transcode attempt writes: the plan, with the attempt's bit rates and length.
    struct TranscodeSettings {
        var video: Int?
        var audio: Int?
        var plan: TranscodePlan
        var videoBitRate: Int
        var audioBitRate: Int
        var maxDuration: Double?
    }

    /// What a transcode wrote.
    struct TranscodeResult {
        var width: Int?
        var height: Int?
        var frames: Int
        var durationSeconds: Double
    }

    /// Decodes `input` (opened with the demuxer for its sniffed `format`) and encodes to H.264 +
    /// AAC (MP4 with faststart) or AAC alone (M4A), by `output`'s extension, as `settings` say.
    static func transcode(
        input: String, format: MediaFormat?, output: String, settings: TranscodeSettings, deadline: Deadline
    ) throws -> TranscodeResult {
        try start()
        let demuxer = try FFmpeg.demuxer(for: format)
        var message = [CChar](repeating: 0, count: 512)
        var written = pm_transcode_result()
        let video = settings.video.flatMap { _ in settings.plan.video }
        let audio = settings.plan.audio
        let rate = video.map { rational($0.frameRate) } ?? AVRational(num: 0, den: 1)
        let control = TranscodePlan.rateControl(bitRate: settings.videoBitRate)
        let result = (video?.preset ?? "").withCString { preset in
            (video?.profile ?? "").withCString { profile in
                var params = pm_transcode_params(
                    video_index: Int32(video == nil ? -1 : settings.video ?? -1), audio_index: Int32(settings.audio ?? -1),
                    max_duration: settings.maxDuration ?? 0, width: Int32(video?.size.width ?? 0),
                    height: Int32(video?.size.height ?? 0), frame_rate_num: rate.num, frame_rate_den: rate.den,
                    min_frame_gap: video?.minimumFrameGap ?? 0, video_bit_rate: Int64(settings.videoBitRate),
                    video_max_rate: Int64(control.maxRate), video_buffer_size: Int32(clamping: control.bufferSize),
                    gop_size: Int32(clamping: video?.keyframeInterval ?? 0), preset: preset, profile: profile,
                    video_threads: Int32(clamping: video?.encoderThreads ?? 1),
                    audio_bit_rate: Int64(settings.audioBitRate), audio_sample_rate: Int32(audio?.sampleRate ?? 0),
                    audio_channels: Int32(audio?.channels ?? 0))
                return pm_av_transcode(input, demuxer, output, &params, deadline.native, &written, &message, message.count)
            }
        }
        guard result >= 0 else { throw ConversionError(code: result, description: string(message)) }
        return TranscodeResult(
            width: video == nil ? nil : Int(written.width), height: video == nil ? nil : Int(written.height),
            frames: Int(written.frames), durationSeconds: written.duration)
    }

    /// A planned frame rate as FFmpeg takes it (a cap as its nearest ratio, `av_d2q`, with
    /// denominators up to 1001000 for NTSC's 1000/1001 rates).
    static func rational(_ rate: TranscodePlan.FrameRate) -> AVRational {
        switch rate {
        case .exactly(let ratio): AVRational(num: Int32(clamping: ratio.numerator), den: Int32(clamping: ratio.denominator))
        case .capped(let perSecond): av_d2q(perSecond, 1_001_000)
        }
    }
}

extension FFmpeg.MediaFile {
    /// The bytes of embedded cover art (an attached picture), if any.
    func coverArt() -> Data? {
        withContext { context in
            var data: UnsafePointer<UInt8>?
            var size: Int32 = 0
            guard pm_av_cover_art(context, &data, &size) >= 0, let data, size > 0 else { return nil }
            return Data(bytes: data, count: Int(size))
        }
    }
}

extension FFmpeg {
    /// Checks `input` (opened with the demuxer for its sniffed `format`) as `plan` says
    /// (`pm_av_check`: every packet of its streams demuxed, those in the plan's windows decoded).
    /// Throws ``ConversionError`` when the check cannot run (the file cannot be opened, the time
    /// ran out); what it found, damage included, is returned.
    static func check(input: String, format: MediaFormat?, plan: KeptMediaCheck, deadline: Deadline) throws
        -> KeptMediaCheck.Findings
    {
        try start()
        let demuxer = try FFmpeg.demuxer(for: format)
        var message = [CChar](repeating: 0, count: 512)
        var native = pm_media_check_plan(
            video_index: Int32(plan.videoIndex ?? -1), audio_index: Int32(plan.audioIndex ?? -1),
            video_decode_seconds: plan.videoDecodeSeconds, audio_decode_seconds: plan.audioDecodeSeconds)
        var found = pm_media_check_result()
        let result = pm_av_check(input, demuxer, &native, deadline.native, &found, &message, message.count)
        guard result >= 0 else { throw ConversionError(code: result, description: string(message)) }
        let failure = withUnsafeBytes(of: found.first_failure) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return KeptMediaCheck.Findings(
            durationSeconds: found.duration_seconds >= 0 ? found.duration_seconds : nil,
            durationEstimated: found.duration_estimated != 0, endSeconds: found.end_seconds,
            demuxError: found.demux_error < 0 ? FFmpeg.describe(found.demux_error) : nil,
            decodedPackets: Int(found.decoded_packets), failedPackets: Int(found.failed_packets),
            firstFailureSeconds: found.first_failure_seconds >= 0 ? found.first_failure_seconds : nil,
            firstFailure: failure)
    }
}
