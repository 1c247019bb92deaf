/// The 7- or 9-byte header of an ADTS frame (raw AAC, `.aac`): enough to know the frame's length,
/// so the sniffer can ask for a second frame where the first says it ends. Pure.
struct ADTSFrameHeader: Equatable {
    /// Index into the AAC sample-rate table (0…12).
    var sampleRateIndex: Int
    /// Bytes from this header to the next one, header included.
    var frameLength: Int

    /// The header at `offset`, or nil when the bytes there are not a valid one (no sync, a layer
    /// other than 0, a reserved sample-rate index, or a frame shorter than its header).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 7 <= bytes.count else { return nil }
        let b = bytes[offset..<offset + 7].map(Int.init)
        // 12 sync bits, then the MPEG version bit, two layer bits (always 0) and protection-absent.
        guard b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        sampleRateIndex = (b[2] >> 2) & 0x0F
        guard sampleRateIndex <= 12 else { return nil }
        frameLength = (b[3] & 0x03) << 11 | b[4] << 3 | b[5] >> 5
        let headerLength = b[1] & 0x01 == 1 ? 7 : 9
        guard frameLength > headerLength else { return nil }
    }
}
