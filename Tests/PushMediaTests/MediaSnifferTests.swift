import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

@Suite("Type detection from bytes")
struct MediaSnifferTests {
    @Test(
        "fixtures are recognised by their bytes",
        arguments: [
            ("photos/landscape.jpg", MediaFormat.jpeg), ("photos/cmyk.jpg", .jpeg), ("photos/progressive.jpg", .jpeg),
            ("photos/gradient-16bit.png", .png), ("graphics/logo-alpha.png", .png), ("graphics/still.gif", .gif),
            ("photos/scene.webp", .webp), ("photos/scene.heic", .heif), ("photos/scene.tif", .tiff),
            ("audio/tone.mp3", .mp3), ("audio/tone.opus.ogg", .ogg), ("video/black-start.mp4", .mp4),
            ("video/portrait.mov", .quicktime),
        ])
    func fixtures(path: String, format: MediaFormat) throws {
        let data = try Data(contentsOf: Fixtures.url(path))
        #expect(MediaSniffer.detect(data) == format)
    }

    @Test("text and empty input are not media, whatever the name")
    func notMedia() throws {
        #expect(MediaSniffer.detect(try Data(contentsOf: Fixtures.url("broken/not-an-image.jpg"))) == nil)
        #expect(MediaSniffer.detect([UInt8]()) == nil)
        #expect(MediaSniffer.detect(Array("<svg xmlns=".utf8)) == nil)
    }

    @Test("movie and audio containers")
    func containers() {
        func ftyp(_ brand: String, compatible: [String] = []) -> [UInt8] {
            let size = 16 + 4 * compatible.count
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0]
                + compatible.flatMap { Array($0.utf8) }
        }
        #expect(MediaSniffer.detect(ftyp("isom", compatible: ["isom", "mp41"])) == .mp4)
        #expect(MediaSniffer.detect(ftyp("qt  ")) == .quicktime)
        #expect(MediaSniffer.detect(ftyp("M4A ")) == .m4a)
        #expect(MediaSniffer.detect(ftyp("mif1", compatible: ["avif"])) == .avif)
        #expect(MediaSniffer.detect(ftyp("heic")) == .heif)
        #expect(MediaSniffer.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == .wav)
        #expect(MediaSniffer.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8)) == .avi)
        #expect(MediaSniffer.detect(Array("ID3\u{4}".utf8)) == .mp3)
        #expect(MediaSniffer.detect([0x1A, 0x45, 0xDF, 0xA3, 0x01]) == .matroska)
        #expect(MediaSniffer.detect(Array("OggS\u{0}".utf8)) == .ogg)
        #expect(MediaSniffer.detect([0x47, 0x40]) == nil, "one sync byte alone is not a transport stream")
    }

    /// An MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz, no padding: 417 bytes per frame).
    static let mp3Frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64]

    /// `count` frames of that kind back to back (zero payload).
    static func mp3Frames(_ count: Int) -> [UInt8] {
        (0..<count).flatMap { _ in mp3Frame + [UInt8](repeating: 0, count: 413) }
    }

    @Test("MP3 without a tag needs a valid frame header and a second one where the first frame ends")
    func mpegAudioFrames() throws {
        let header = try #require(MPEGAudioFrameHeader(Self.mp3Frame, at: 0))
        #expect(header.version == 1 && header.layer == 3 && header.bitRate == 128_000 && header.sampleRate == 44_100)
        #expect(header.frameLength == 417)
        #expect(MediaSniffer.detect(Self.mp3Frames(3)) == .mp3)
        // MPEG-2 layer III, 64 kbit/s, 22.05 kHz, padded: 72 * 64000 / 22050 + 1 = 209 bytes.
        let mpeg2 = try #require(MPEGAudioFrameHeader([0xFF, 0xF3, 0x82, 0x64], at: 0))
        #expect(mpeg2.frameLength == 209)
        #expect(MediaSniffer.detect([0xFF, 0xF3, 0x82, 0x64] + [UInt8](repeating: 0, count: 205) + [0xFF, 0xF3, 0x82, 0x64]) == .mp3)

        #expect(MediaSniffer.detect(Self.mp3Frames(1)) == nil, "one frame header with nothing where the next should be")
        var shifted = Self.mp3Frames(2)
        shifted.insert(0, at: 417)
        #expect(MediaSniffer.detect(shifted) == nil, "the second header is not where the first frame ends")
        var otherRate = Self.mp3Frames(2)
        otherRate[419] = 0x94 // the second frame at 48 kHz
        #expect(MediaSniffer.detect(otherRate) == nil, "frames of one stream share version, layer and sample rate")
    }

    @Test("ff ff padding, a PhotoCD image and ADTS AAC are not MP3")
    func notMPEGAudio() {
        #expect(MediaSniffer.detect([UInt8](repeating: 0xFF, count: 4096)) == nil)
        // Kodak PhotoCD: 2 KB of ff, then the "PCD_IPI" signature.
        let photoCD = [UInt8](repeating: 0xFF, count: 2048) + Array("PCD_IPI".utf8) + [UInt8](repeating: 0, count: 2041)
        #expect(MediaSniffer.detect(photoCD) == nil)
        #expect(MPEGAudioFrameHeader([0xFF, 0xFF, 0xFF, 0xFF], at: 0) == nil, "bit-rate index 15 is invalid")
        #expect(MPEGAudioFrameHeader([0xFF, 0xFB, 0x00, 0x64], at: 0) == nil, "free format has no frame length")
        #expect(MPEGAudioFrameHeader([0xFF, 0xEB, 0x90, 0x64], at: 0) == nil, "version bits 01 are reserved")
        #expect(MPEGAudioFrameHeader([0xFF, 0xFB, 0x9C, 0x64], at: 0) == nil, "sample-rate index 3 is reserved")
        #expect(MPEGAudioFrameHeader([0xFF, 0xFB, 0x90, 0x66], at: 0) == nil, "emphasis 10 is reserved")
        #expect(MPEGAudioFrameHeader([0xFF, 0xF1, 0x50, 0x80], at: 0) == nil, "layer 0 is ADTS AAC, not MPEG audio")
        #expect(MediaSniffer.detect(Array("ID3\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}".utf8)) == .mp3, "an ID3 tag is enough")
    }

    @Test("raw AAC needs a valid ADTS header and a second one where the first frame ends")
    func adtsFrames() throws {
        // MPEG-4, no CRC, AAC LC, 44.1 kHz (index 4), stereo, 371-byte frames.
        func frame(_ length: Int, rateIndex: UInt8 = 4) -> [UInt8] {
            [
                0xFF, 0xF1, 0x40 | rateIndex << 2, 0x80 | UInt8((length >> 11) & 0x03), UInt8((length >> 3) & 0xFF),
                UInt8((length & 0x07) << 5) | 0x1F, 0xFC,
            ] + [UInt8](repeating: 0, count: length - 7)
        }
        let header = try #require(ADTSFrameHeader(frame(371), at: 0))
        #expect(header.frameLength == 371 && header.sampleRateIndex == 4)
        #expect(MediaSniffer.detect(frame(371) + frame(300)) == .aac)
        #expect(MediaSniffer.detect(frame(371)) == nil, "nothing where the second frame should be")
        #expect(MediaSniffer.detect(frame(371) + frame(300, rateIndex: 3)) == nil, "frames of one stream share a sample rate")
        #expect(ADTSFrameHeader(frame(371, rateIndex: 13), at: 0) == nil, "sample-rate index 13 is reserved")
        #expect(ADTSFrameHeader([0xFF, 0xF1, 0x50, 0x80, 0x00, 0x1F, 0xFC], at: 0) == nil, "a frame shorter than its header")
        #expect(ADTSFrameHeader(Self.mp3Frame + [0, 0, 0], at: 0) == nil, "MPEG audio (layer 3) is not ADTS")
    }

    @Test("a transport stream needs its sync byte every 188 bytes")
    func transportStream() {
        let packet = [0x47] + [UInt8](repeating: 0, count: 187)
        #expect(MediaSniffer.detect(packet + packet) == .mpegTransportStream)
        #expect(MediaSniffer.detect(packet + [0x00] + packet) == nil)
    }

    @Test("every movie and audio format has one FFmpeg demuxer; images have none, and no other demuxer is allowed")
    func demuxerTable() {
        for format in MediaFormat.allCases {
            #expect((format.demuxer == nil) == (format.kind == .image), "\(format)")
        }
        #expect(MediaFormat.mp4.demuxer == "mov" && MediaFormat.quicktime.demuxer == "mov" && MediaFormat.m4a.demuxer == "mov")
        #expect(MediaFormat.matroska.demuxer == "matroska" && MediaFormat.mp3.demuxer == "mp3")
        let accepted = MediaFormat.acceptedDemuxers.split(separator: ",").map(String.init)
        #expect(Set(accepted) == Set(MediaFormat.allCases.compactMap(\.demuxer)))
        #expect(accepted.count == Set(accepted).count, "each demuxer once")
        for refused in ["hls", "concat", "image2", "photocd", "http", "tty", "subviewer"] {
            #expect(!accepted.contains(refused))
        }
    }

    @Test("the leak check's driver whitelists the same demuxers as PushMedia")
    func leakCheckWhitelist() throws {
        let driver = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("scripts/leakcheck/ffmpeg_driver.c"), encoding: .utf8)
        #expect(driver.contains("pm_av_startup(\"\(MediaFormat.acceptedDemuxers)\")"))
    }

    @Test("images have one libvips loader each; movies and audio none")
    func loaderTable() {
        for format in MediaFormat.allCases {
            #expect((Vips.Loader(format) == nil) == (format.kind != .image), "\(format)")
        }
        #expect(Vips.Loader(.avif) == .heif && Vips.Loader(.heif) == .heif && Vips.Loader(.tiff) == .tiff)
    }

    @Test("shrink-on-load decodes at the smallest scale that still covers the target, only where the loader can shrink")
    func shrinkOnLoad() {
        let target = PixelSize(width: 600, height: 300)
        // libjpeg rounds up: 1199×599 halves to 600×300.
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 1198, height: 599), target: target, swapsAxes: false) == 1)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 1199, height: 599), target: target, swapsAxes: false) == 2)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 1200, height: 600), target: target, swapsAxes: false) == 2)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 4000, height: 2000), target: target, swapsAxes: false) == 4)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 4800, height: 2400), target: target, swapsAxes: false) == 8)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 40000, height: 20000), target: target, swapsAxes: false) == 8)
        // Stored sideways (EXIF 6): 1200×4800 as stored is 4800×1200 upright, 8 times the target's
        // width and 4 times its height; read as it is stored, it is 2 times the target's width.
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 1200, height: 4800), target: target, swapsAxes: true) == 4)
        #expect(DecodePath.shrinkOnLoad(format: .jpeg, source: PixelSize(width: 1200, height: 4800), target: target, swapsAxes: false) == 2)
        // libwebp scales by any factor: the whole shrink, never an enlargement.
        #expect(DecodePath.shrinkOnLoad(format: .webp, source: PixelSize(width: 4800, height: 2400), target: target, swapsAxes: false) == 8)
        #expect(DecodePath.shrinkOnLoad(format: .webp, source: PixelSize(width: 1400, height: 700), target: target, swapsAxes: false) == 1400.0 / 600)
        #expect(DecodePath.shrinkOnLoad(format: .webp, source: PixelSize(width: 300, height: 100), target: target, swapsAxes: false) == 1)
        for format: MediaFormat in [.png, .gif, .heif, .avif, .tiff] {
            #expect(DecodePath.shrinkOnLoad(format: format, source: PixelSize(width: 9600, height: 4800), target: target, swapsAxes: false) == 1)
        }
    }

    @Test("a JPEG's shrink-on-load decode covers every plan's decode size, and twice the shrink would not")
    func shrinkOnLoadCoversThePlan() {
        var random = SeededRandom(seed: 16)
        for _ in 0..<2_000 {
            let stored = PixelSize(width: Int.random(in: 1...20_000, using: &random), height: Int.random(in: 1...20_000, using: &random))
            let sideways = Bool.random(using: &random)
            let upright = sideways ? PixelSize(width: stored.height, height: stored.width) : stored
            let plan = ImagePlan(source: upright, profile: Profile())
            let factor = Int(DecodePath.shrinkOnLoad(format: .jpeg, source: stored, target: plan.decode, swapsAxes: sideways))
            // libjpeg's scaled size, upright.
            func decoded(_ f: Int) -> PixelSize {
                let w = (stored.width + f - 1) / f
                let h = (stored.height + f - 1) / f
                return sideways ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
            }
            #expect([1, 2, 4, 8].contains(factor))
            #expect(decoded(factor).width >= plan.decode.width && decoded(factor).height >= plan.decode.height, "\(stored) → \(plan.decode)")
            if factor < 8 {
                let twice = decoded(factor * 2)
                #expect(twice.width < plan.decode.width || twice.height < plan.decode.height, "\(stored) → \(plan.decode)")
            }
        }
    }
}
