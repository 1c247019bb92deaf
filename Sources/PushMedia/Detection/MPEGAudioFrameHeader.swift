/// The 4-byte header of an MPEG audio (MP1/MP2/MP3) frame: enough to know the frame's length, so
/// the sniffer can ask for a second frame where the first says it ends. Pure.
struct MPEGAudioFrameHeader: Equatable {
    /// 1 (MPEG-1), 2 (MPEG-2) or 25 (MPEG-2.5).
    var version: Int
    /// 1, 2 or 3.
    var layer: Int
    var bitRate: Int
    var sampleRate: Int
    var padding: Bool

    /// The header at `offset`, or nil when the bytes there are not a valid one (no sync, a
    /// reserved version, layer, sample rate or emphasis, or a free or bad bit-rate index).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b1 = bytes[offset + 1]
        let b2 = bytes[offset + 2]
        let b3 = bytes[offset + 3]
        guard bytes[offset] == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 0x03 {
        case 0: version = 25
        case 2: version = 2
        case 3: version = 1
        default: return nil
        }
        let layerBits = Int((b1 >> 1) & 0x03)
        guard layerBits != 0 else { return nil }
        layer = 4 - layerBits
        let rateIndex = Int(b2 >> 4)
        guard rateIndex != 0, rateIndex != 15 else { return nil }
        let sampleIndex = Int((b2 >> 2) & 0x03)
        guard sampleIndex != 3, b3 & 0x03 != 2 else { return nil }
        let table = Self.bitRates[version == 1 ? layer - 1 : (layer == 1 ? 3 : 4)]
        bitRate = table[rateIndex] * 1000
        sampleRate = [44100, 48000, 32000][sampleIndex] / (version == 1 ? 1 : version == 2 ? 2 : 4)
        padding = b2 & 0x02 != 0
    }

    /// kbit/s by bit-rate index: MPEG-1 layers 1, 2, 3; MPEG-2/2.5 layer 1; MPEG-2/2.5 layers 2 and 3.
    private static let bitRates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ]

    /// Bytes from this header to the next one.
    var frameLength: Int {
        let pad = padding ? 1 : 0
        switch layer {
        case 1: return (12 * bitRate / sampleRate + pad) * 4
        case 3 where version != 1: return 72 * bitRate / sampleRate + pad
        default: return 144 * bitRate / sampleRate + pad
        }
    }

    /// True when `other` can follow this frame in the same stream.
    func continues(with other: MPEGAudioFrameHeader) -> Bool {
        other.version == version && other.layer == layer && other.sampleRate == sampleRate
    }
}
