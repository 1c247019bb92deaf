// libFuzzer harness for PushMedia's media sniffer (Sources/PushMedia/Detection: MediaSniffer,
// MediaFormat, ADTSFrameHeader, MPEGAudioFrameHeader), the Swift that reads a file's first bytes
// to decide its one loader or demuxer. scripts/fuzz compiles it with those files and the
// PushMediaModel sources into one module (their `import PushMediaModel` dropped), with
// `swiftc -sanitize=fuzzer,address`: a trap (an index out of range, an overflow) is a crash.
//
// Beyond not trapping:
// - the format depends on the first MediaSniffer.headerLength bytes only (what the pipeline
//   reads), so bytes past them never change it;
// - the frame headers, at every offset, are either nil or describe a frame longer than
//   themselves (the sniffer steps to the next header by that length);
// - a second call gives the same answer.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSniffer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let format = MediaSniffer.detect(bytes)
    _ = format?.kind
    guard MediaSniffer.detect(bytes[...]) == format else { fatalError("two calls disagree") }
    if bytes.count >= MediaSniffer.headerLength {
        var longer = Array(bytes.prefix(MediaSniffer.headerLength))
        longer.append(contentsOf: bytes.reversed())
        guard MediaSniffer.detect(longer) == format else { fatalError("bytes past the header changed the format") }
    }
    for offset in 0..<min(bytes.count, 64) {
        if let adts = ADTSFrameHeader(bytes, at: offset), adts.frameLength <= 7 || !(0...12).contains(adts.sampleRateIndex) {
            fatalError("an ADTS header of \(adts.frameLength) bytes at \(offset)")
        }
        if let mpeg = MPEGAudioFrameHeader(bytes, at: offset), mpeg.frameLength <= 4 {
            fatalError("an MPEG audio header of \(mpeg.frameLength) bytes at \(offset)")
        }
    }
    _ = MediaSniffer.isADTS(bytes)
    _ = MediaSniffer.isMPEGAudio(bytes)
    return 0
}
