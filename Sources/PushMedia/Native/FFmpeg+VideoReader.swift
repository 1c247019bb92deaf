import CFFmpeg
import CFFmpegShims
import Foundation

extension FFmpeg {
    /// Decodes one video stream frame by frame (non-reference frames skipped), for poster-frame
    /// candidates. Closed in `deinit`.
    final class VideoReader {
        private var reader: OpaquePointer?

        /// Opens stream `stream` of `path` with the demuxer for its sniffed `format`; reading
        /// stops with an error once `deadline` passes.
        init(path: String, format: MediaFormat?, stream: Int, deadline: Deadline) throws {
            try FFmpeg.start()
            let demuxer = try FFmpeg.demuxer(for: format)
            var opened: OpaquePointer?
            let result = pm_video_reader_open(path, demuxer, Int32(stream), deadline.native, &opened)
            try FFmpeg.checkFormat(result, path: path, format: format)
            guard result >= 0, let opened else { throw FFmpeg.Error(operation: "open the video decoder", code: result) }
            reader = opened
        }

        deinit {
            pm_video_reader_close(&reader)
        }

        /// Decodes the next frame and returns its time in seconds from the start, or nil at the end.
        func next() throws -> Double? {
            var time = 0.0
            let result = pm_video_reader_next(reader, &time)
            if result == FFmpeg.endOfFile { return nil }
            guard result >= 0 else { throw FFmpeg.Error(operation: "decode", code: result) }
            return time
        }

        /// Coded size of the current frame and its sample (pixel) aspect ratio.
        var frameSize: (width: Int, height: Int, pixelAspect: Double) {
            var width: Int32 = 0
            var height: Int32 = 0
            var num: Int32 = 1
            var den: Int32 = 1
            pm_video_reader_frame_size(reader, &width, &height, &num, &den)
            return (Int(width), Int(height), Double(num) / Double(den))
        }

        /// The current frame's luma, scaled to `width`×`height`, one byte per pixel.
        func luma(width: Int, height: Int) throws -> [UInt8] {
            var pixels = [UInt8](repeating: 0, count: width * height)
            let result = pixels.withUnsafeMutableBufferPointer {
                pm_video_reader_luma(reader, Int32(width), Int32(height), $0.baseAddress)
            }
            guard result >= 0 else { throw FFmpeg.Error(operation: "scale", code: result) }
            return pixels
        }

        /// The current frame as packed RGB, scaled to `width`×`height`.
        func rgb(width: Int, height: Int) throws -> [UInt8] {
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            let result = pixels.withUnsafeMutableBufferPointer {
                pm_video_reader_rgb(reader, Int32(width), Int32(height), $0.baseAddress)
            }
            guard result >= 0 else { throw FFmpeg.Error(operation: "scale", code: result) }
            return pixels
        }
    }
}
