import CFFmpeg
import CFFmpegShims
import PushMediaModel

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
        return string(buffer)
    }

    /// The NUL-terminated text a C function wrote into `buffer`.
    static func string(_ buffer: [CChar]) -> String { String(cBuffer: buffer) }

    /// `AVERROR(EAGAIN)` and friends (macros in C).
    static func averror(_ posix: Int32) -> Int32 { pm_averror(posix) }
    static var endOfFile: Int32 { pm_averror_eof() }
    /// Returned when the deadline (the interrupt callback) stopped FFmpeg.
    static var exit: Int32 { pm_averror_exit() }

    /// What `pm_av_open` returns when FFmpeg's own probes are sure the file is a format PushMedia
    /// does not accept.
    static var formatMismatch: Int32 { pm_averror_format_mismatch() }

    /// What FFmpeg says of the input itself when it cannot be decoded: damaged data
    /// (`AVERROR_INVALIDDATA`), a stream no decoder of this build reads (`AVERROR_DECODER_NOT_FOUND`:
    /// FFmpeg found no codec for what the header declares, such as PCM of 158 bits a sample), a
    /// feature FFmpeg does not implement (`AVERROR_PATCHWELCOME`). Retrying meets the same bytes.
    static func inputFault(_ code: Int32) -> ErrorCode? {
        switch code {
        case pm_averror_invalid_data(): .corruptInput
        case pm_averror_decoder_not_found(), pm_averror_patch_welcome(): .unsupportedType
        default: nil
        }
    }

    /// The demuxer FFmpeg must open a file of `format` with (``MediaFormat/demuxer``); anything
    /// else is refused before FFmpeg sees it.
    static func demuxer(for format: MediaFormat?) throws -> String {
        guard let format, let demuxer = format.demuxer else {
            throw ItemError(.unsupportedType, "FFmpeg opens only movies and audio, not \(format?.rawValue ?? "an unknown format")")
        }
        return demuxer
    }

    /// Throws when `pm_av_open` (or a function that calls it) refused `path` because its content
    /// is not the format its first bytes named: an `unsupported_type` item naming what FFmpeg saw.
    static func checkFormat(_ result: Int32, path: String, format: MediaFormat?) throws {
        guard result == formatMismatch else { return }
        var name = [CChar](repeating: 0, count: 128)
        _ = pm_av_guess_demuxer(path, &name, name.count)
        let seen = string(name)
        throw ItemError(
            .unsupportedType,
            "the first bytes say \(format?.rawValue ?? "media"), but FFmpeg reads the file as \(seen.isEmpty ? "another format" : seen), which PushMedia does not accept"
        )
    }

    /// Versions of the libraries, e.g. `["libavformat": "59.27.100", …]`, opening them (throws
    /// what ``start()`` throws when they cannot be opened).
    static func libraryVersions() throws -> [String: String] {
        func text(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        try start()
        return [
            "libavformat": text(avformat_version()),
            "libavcodec": text(avcodec_version()),
            "libavutil": text(avutil_version()),
            "libswscale": text(swscale_version()),
            "libswresample": text(swresample_version()),
        ]
    }
}
