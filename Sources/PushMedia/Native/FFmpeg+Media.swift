import CFFmpeg
import CPushMediaShims
import Foundation
import PushMediaModel

extension FFmpeg {
    /// Process-wide set-up, once.
    static let started: Bool = {
        pm_av_startup()
        return true
    }()

    /// An open media file (`AVFormatContext`), closed in `deinit`.
    final class MediaFile {
        private var context: UnsafeMutablePointer<AVFormatContext>?

        /// Opens `path` and reads its stream info; stops with an error once `deadline` passes.
        init(path: String, deadline: ContinuousClock.Instant) throws {
            _ = FFmpeg.started
            let remaining = ContinuousClock.now.duration(to: deadline)
            let micros = remaining.components.seconds * 1_000_000 + remaining.components.attoseconds / 1_000_000_000_000
            var opened: UnsafeMutablePointer<AVFormatContext>?
            let result = pm_av_open(path, av_gettime_relative() + micros, &opened)
            guard result >= 0, let opened else { throw FFmpeg.Error(operation: "open", code: result) }
            context = opened
        }

        deinit {
            pm_av_close(&context)
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
