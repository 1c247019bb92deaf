import Foundation
import PushMediaModel
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
}
