import CFFmpeg
import CFFmpegShims
import Foundation
import PushMediaModel

extension FFmpeg {
    /// Opens FFmpeg's libraries and sets them up, once per process: PushMedia is not linked
    /// against them (`pm_ffmpeg_load`), and the demuxers it accepts become FFmpeg's whitelist.
    /// Every way into FFmpeg calls this first. Throws an `internal_error` ``ItemError`` naming
    /// what the loader could not find when the libraries are missing (an incomplete install).
    static func start() throws {
        if let failure = startFailure { throw ItemError(.internalError, failure) }
    }

    /// Why FFmpeg's libraries could not be opened, or nil once they are (and set up).
    private static let startFailure: String? = {
        var message = [CChar](repeating: 0, count: 512)
        guard pm_ffmpeg_load(&message, message.count) == 0 else {
            return "FFmpeg's libraries could not be loaded: \(string(message))"
        }
        pm_av_startup(MediaFormat.acceptedDemuxers)
        return nil
    }()

    /// An open media file (`AVFormatContext`), closed in `deinit`.
    final class MediaFile {
        private var context: UnsafeMutablePointer<AVFormatContext>?

        /// Opens `path` with the demuxer for its sniffed `format` (never FFmpeg's guess, only
        /// local files) and reads its stream info; stops with an error once `deadline` passes.
        /// Content FFmpeg is sure is another format (a playlist behind an ID3 tag, ...) is an
        /// `unsupported_type` ``ItemError``.
        init(path: String, format: MediaFormat?, deadline: Deadline) throws {
            try FFmpeg.start()
            let demuxer = try FFmpeg.demuxer(for: format)
            var opened: UnsafeMutablePointer<AVFormatContext>?
            let result = pm_av_open(path, demuxer, deadline.native, &opened)
            try FFmpeg.checkFormat(result, path: path, format: format)
            guard result >= 0, let opened else { throw FFmpeg.Error(operation: "open", code: result) }
            context = opened
        }

        deinit {
            pm_av_close(&context)
        }

        /// Runs `body` with the open context (nil once closed).
        func withContext<T>(_ body: (UnsafeMutablePointer<AVFormatContext>) -> T?) -> T? {
            context.flatMap(body)
        }

        /// What stream `index`'s video is, as a transcode reads it: the coded size, the sample
        /// aspect ratio (`av_guess_sample_aspect_ratio`) and FFmpeg's guess of the frame rate (nil when it is not a video stream).
        func videoSource(stream index: Int) -> TranscodePlan.VideoSource? {
            withContext { context in
                guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index],
                    let parameters = stream.pointee.codecpar?.pointee, parameters.codec_type == AVMEDIA_TYPE_VIDEO
                else { return nil }
                func ratio(_ r: AVRational) -> TranscodePlan.Ratio? {
                    r.num > 0 && r.den > 0 ? TranscodePlan.Ratio(numerator: Int(r.num), denominator: Int(r.den)) : nil
                }
                // The container's ratio where it gives one (Matroska's display size), else the
                // codec's: what a player shows.
                return TranscodePlan.VideoSource(
                    width: Int(parameters.width), height: Int(parameters.height),
                    sampleAspect: ratio(av_guess_sample_aspect_ratio(context, stream, nil)),
                    frameRate: ratio(av_guess_frame_rate(context, stream, nil)))
            }
        }

        /// A codec tag as four printable characters, or nil when unset or unprintable.
        static func fourcc(_ tag: UInt32) -> String? {
            guard tag != 0 else { return nil }
            let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xff) }
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// What the container and its streams say, without decoding.
        func probe() -> MediaDescription {
            guard let context else { return MediaDescription(container: "", streams: []) }
            let c = context.pointee
            let container = c.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
            let duration = c.duration > 0 ? Double(c.duration) / Double(AV_TIME_BASE) : nil
            var streams: [MediaStream] = []
            for index in 0..<Int(c.nb_streams) {
                guard let stream = c.streams[index], let parameters = stream.pointee.codecpar?.pointee else { continue }
                let type: String
                switch parameters.codec_type {
                case AVMEDIA_TYPE_VIDEO: type = "video"
                case AVMEDIA_TYPE_AUDIO: type = "audio"
                case AVMEDIA_TYPE_SUBTITLE: type = "subtitle"
                case AVMEDIA_TYPE_ATTACHMENT: type = "attachment"
                default: type = "data"
                }
                var entry = MediaStream(index: index, type: type, codec: String(cString: avcodec_get_name(parameters.codec_id)))
                if parameters.bit_rate > 0 { entry.bitRate = Int(parameters.bit_rate) }
                entry.codecTag = Self.fourcc(parameters.codec_tag)
                let timeBase = stream.pointee.time_base
                if stream.pointee.duration > 0, timeBase.den > 0 {
                    entry.durationSeconds = Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
                }
                if type == "video" {
                    entry.width = Int(parameters.width)
                    entry.height = Int(parameters.height)
                    let rotation = Int(pm_av_stream_rotation(stream))
                    entry.rotation = rotation == 0 ? nil : rotation
                    let rate = stream.pointee.avg_frame_rate
                    if rate.num > 0, rate.den > 0 { entry.frameRate = Double(rate.num) / Double(rate.den) }
                    if parameters.format >= 0, let name = av_get_pix_fmt_name(AVPixelFormat(parameters.format)) {
                        entry.pixelFormat = String(cString: name)
                    }
                    entry.coverArt = pm_av_stream_is_cover_art(stream) != 0 ? true : nil
                } else if type == "audio" {
                    entry.sampleRate = Int(parameters.sample_rate)
                    entry.channels = Int(parameters.ch_layout.nb_channels)
                }
                streams.append(entry)
            }
            return MediaDescription(
                container: container, durationSeconds: duration, bitRate: c.bit_rate > 0 ? Int(c.bit_rate) : nil,
                streams: streams)
        }
    }
}
