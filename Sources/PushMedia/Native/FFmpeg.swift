import CFFmpeg
import CPushMediaShims

/// FFmpeg's libraries, seen from Swift (video and audio build on this).
enum FFmpeg {
    /// An FFmpeg failure with the library's message (`av_strerror`).
    struct Error: Swift.Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var message: String { FFmpeg.describe(code) }
        var description: String { "\(operation): \(message)" }
    }

    /// The text FFmpeg gives for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        pm_av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `AVERROR(EAGAIN)` and friends (macros in C).
    static func averror(_ posix: Int32) -> Int32 { pm_averror(posix) }
    static var endOfFile: Int32 { pm_averror_eof() }
    /// Returned when the deadline (the interrupt callback) stopped FFmpeg.
    static var exit: Int32 { pm_averror_exit() }

    /// Versions of the linked libraries, e.g. `["libavformat": "59.27.100", …]`.
    static var libraryVersions: [String: String] {
        func text(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        return [
            "libavformat": text(avformat_version()),
            "libavcodec": text(avcodec_version()),
            "libavutil": text(avutil_version()),
            "libswscale": text(swscale_version()),
            "libswresample": text(swresample_version()),
        ]
    }
}
