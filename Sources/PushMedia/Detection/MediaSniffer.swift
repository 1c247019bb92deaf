import PushMediaModel

/// Decides a file's format from its first bytes — never from its name.
public enum MediaSniffer {
    /// How many leading bytes ``detect(_:)`` looks at: enough for two MPEG audio frames (the
    /// longest is 2,881 bytes), two transport-stream packets and two typical ADTS frames.
    public static let headerLength = 4096

    /// The format of a file whose first bytes are `header`, or nil when it is none PushMedia knows.
    public static func detect(_ header: some Collection<UInt8>) -> MediaFormat? {
        let b = Array(header.prefix(headerLength))
        func at(_ offset: Int, _ bytes: [UInt8]) -> Bool {
            offset + bytes.count <= b.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        func ascii(_ offset: Int, _ text: String) -> Bool { at(offset, Array(text.utf8)) }

        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii(0, "GIF87a") || ascii(0, "GIF89a") { return .gif }
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if ascii(0, "RIFF") {
            if ascii(8, "WEBP") { return .webp }
            if ascii(8, "WAVE") { return .wav }
            if ascii(8, "AVI ") { return .avi }
            return nil
        }
        if ascii(0, "FORM"), ascii(8, "AIFF") || ascii(8, "AIFC") { return .aiff }
        if ascii(4, "ftyp") { return isoBaseMedia(b) }
        if ascii(0, "OggS") { return .ogg }
        if ascii(0, "fLaC") { return .flac }
        if at(0, [0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        if at(0, [0x00, 0x00, 0x01, 0xBA]) { return .mpegProgramStream }
        if b.count > 0, b[0] == 0x47, b.count < 189 || b[188] == 0x47, looksLikeTransportStream(b) {
            return .mpegTransportStream
        }
        if ascii(0, "ID3") { return .mp3 }
        if isMPEGAudio(b) { return .mp3 }
        if isADTS(b) { return .aac }
        return nil
    }

    /// A valid ADTS header at the start and a second one, at the same sample rate, where the first
    /// frame ends.
    static func isADTS(_ b: [UInt8]) -> Bool {
        guard let first = ADTSFrameHeader(b, at: 0), let second = ADTSFrameHeader(b, at: first.frameLength) else {
            return false
        }
        return first.sampleRateIndex == second.sampleRateIndex
    }

    /// A valid MPEG audio frame header at the start and a second one where the first frame ends
    /// (`ff ff …` padding, or any two bytes that happen to look like frame sync, are not MP3).
    static func isMPEGAudio(_ b: [UInt8]) -> Bool {
        guard let first = MPEGAudioFrameHeader(b, at: 0),
            let second = MPEGAudioFrameHeader(b, at: first.frameLength)
        else { return false }
        return first.continues(with: second)
    }

    /// ISO base media (`ftyp` box): HEIF/AVIF images, MP4/QuickTime movies, M4A audio.
    static func isoBaseMedia(_ b: [UInt8]) -> MediaFormat? {
        guard b.count >= 12 else { return nil }
        let boxSize = b[0..<4].reduce(0) { $0 << 8 | Int($1) }
        var brands: [String] = [String(decoding: b[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= min(b.count, max(boxSize, 16)) {
            brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        if brands.contains(where: { ["avif", "avis"].contains($0) }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains($0) }) {
            return .heif
        }
        let major = brands[0]
        if ["M4A ", "M4B ", "M4P "].contains(major) { return .m4a }
        if major == "qt  " { return .quicktime }
        return .mp4
    }

    private static func looksLikeTransportStream(_ b: [UInt8]) -> Bool {
        // A lone 0x47 is common; only call it a transport stream when the sync byte repeats.
        b.count >= 189 && b[188] == 0x47
    }
}
