import PushMediaModel

/// A container/file format recognised from its first bytes.
public enum MediaFormat: String, Sendable, CaseIterable, Codable {
    // Still or animated images.
    case jpeg, png, gif, webp, heif, avif, tiff
    // Movies.
    case mp4, quicktime, matroska, avi
    case mpegProgramStream = "mpeg-ps"
    case mpegTransportStream = "mpeg-ts"
    // Audio.
    case mp3, m4a, wav, aiff, ogg, flac
    /// Raw AAC in ADTS frames (`.aac`).
    case aac

    /// The kind before a closer look (a GIF or WebP may turn out to be animated, an Ogg a movie).
    public var kind: MediaKind {
        switch self {
        case .jpeg, .png, .gif, .webp, .heif, .avif, .tiff: .image
        case .mp4, .quicktime, .matroska, .avi, .mpegProgramStream, .mpegTransportStream: .video
        case .mp3, .m4a, .wav, .aiff, .ogg, .flac, .aac: .audio
        }
    }

    /// Formats whose files can hold several frames or pages.
    public var mayHavePages: Bool {
        switch self {
        case .gif, .webp: true
        default: false
        }
    }

    /// The FFmpeg demuxer that opens this format (its short name), nil for images (libvips reads
    /// those). PushMedia hands FFmpeg this demuxer instead of letting it guess, and allows no
    /// other (``acceptedDemuxers``). The one table from sniffed format to demuxer.
    public var demuxer: String? {
        switch self {
        case .jpeg, .png, .gif, .webp, .heif, .avif, .tiff: nil
        case .mp4, .quicktime, .m4a: "mov"
        case .matroska: "matroska"
        case .avi: "avi"
        case .mpegProgramStream: "mpeg"
        case .mpegTransportStream: "mpegts"
        case .mp3: "mp3"
        case .wav: "wav"
        case .aiff: "aiff"
        case .ogg: "ogg"
        case .flac: "flac"
        case .aac: "aac"
        }
    }

    /// Every demuxer FFmpeg may use, comma-separated as FFmpeg's `format_whitelist` wants.
    public static var acceptedDemuxers: String {
        var names: [String] = []
        for name in allCases.compactMap(\.demuxer) where !names.contains(name) { names.append(name) }
        return names.joined(separator: ",")
    }

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heif: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .mp4: "video/mp4"
        case .quicktime: "video/quicktime"
        case .matroska: "video/x-matroska"
        case .avi: "video/x-msvideo"
        case .mpegProgramStream: "video/mpeg"
        case .mpegTransportStream: "video/mp2t"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .wav: "audio/wav"
        case .aiff: "audio/aiff"
        case .ogg: "audio/ogg"
        case .flac: "audio/flac"
        case .aac: "audio/aac"
        }
    }
}
