import CFFmpeg
import CPushMediaShims
import Foundation

extension FFmpeg {
    /// A remux or transcode failure: the stage and FFmpeg's message.
    struct ConversionError: Swift.Error, CustomStringConvertible {
        var code: Int32
        var description: String
        var timedOut: Bool { code == FFmpeg.exit }
    }

    /// Copies the streams (no re-encode) of `input`, opened with the demuxer for its sniffed
    /// `format`, into `output`, whose extension names the container.
    static func remux(
        input: String, format: MediaFormat?, output: String, video: Int?, audio: Int?, deadline: ContinuousClock.Instant
    ) throws {
        try start()
        let demuxer = try FFmpeg.demuxer(for: format)
        var message = [CChar](repeating: 0, count: 512)
        let result = pm_av_remux(
            input, demuxer, output, Int32(video ?? -1), Int32(audio ?? -1), microseconds(deadline), &message, message.count)
        guard result >= 0 else { throw ConversionError(code: result, description: string(message)) }
    }

    /// What a transcode should write.
    struct TranscodeSettings {
        var video: Int?
        var audio: Int?
        var maxLongSide: Int
        var videoBitRate: Int
        var audioBitRate: Int
        var maxFrameRate: Double
        var maxDuration: Double?
        var preset: String
    }

    /// What a transcode wrote.
    struct TranscodeResult {
        var width: Int?
        var height: Int?
        var frames: Int
        var durationSeconds: Double
    }

    /// Decodes `input` (opened with the demuxer for its sniffed `format`) and encodes to H.264 +
    /// AAC (MP4 with faststart) or AAC alone (M4A), by `output`'s extension.
    static func transcode(
        input: String, format: MediaFormat?, output: String, settings: TranscodeSettings, deadline: ContinuousClock.Instant
    ) throws -> TranscodeResult {
        try start()
        let demuxer = try FFmpeg.demuxer(for: format)
        var message = [CChar](repeating: 0, count: 512)
        var written = pm_transcode_result()
        let result = settings.preset.withCString { preset in
            var params = pm_transcode_params(
                video_index: Int32(settings.video ?? -1), audio_index: Int32(settings.audio ?? -1),
                max_long_side: Int32(settings.maxLongSide), video_bit_rate: Int64(settings.videoBitRate),
                audio_bit_rate: Int64(settings.audioBitRate), max_frame_rate: settings.maxFrameRate,
                max_duration: settings.maxDuration ?? 0, preset: preset, audio_sample_rate: 0, audio_channels: 2)
            return pm_av_transcode(input, demuxer, output, &params, microseconds(deadline), &written, &message, message.count)
        }
        guard result >= 0 else { throw ConversionError(code: result, description: string(message)) }
        return TranscodeResult(
            width: settings.video == nil ? nil : Int(written.width), height: settings.video == nil ? nil : Int(written.height),
            frames: Int(written.frames), durationSeconds: written.duration)
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
