import Foundation

/// Tiny media files written by hand for the browser test: PNG (uncompressed deflate) and WAV.
enum TestMedia {
    typealias RGB = (UInt8, UInt8, UInt8)

    /// An 8-bit RGB PNG whose pixel at (x, y) is `colour(x, y)`. The image data is zlib with
    /// stored (uncompressed) deflate blocks, so no compressor is needed.
    static func png(width: Int, height: Int, colour: (Int, Int) -> RGB) -> Data {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * 3))
        for y in 0..<height {
            raw.append(0) // filter: none
            for x in 0..<width {
                let (r, g, b) = colour(x, y)
                raw += [r, g, b]
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [8, 2, 0, 0, 0] // 8 bits, RGB, deflate, no filter method, no interlace
        png += chunk("IHDR", ihdr)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// A solid-colour PNG.
    static func png(width: Int, height: Int, solid: RGB) -> Data {
        png(width: width, height: height) { _, _ in solid }
    }

    /// A mono 8-bit PCM WAV of `samples` samples of a quiet square wave at 8 kHz.
    static func wav(samples: Int = 8000) -> Data {
        var d: [UInt8] = Array("RIFF".utf8) + littleEndian(UInt32(36 + samples)) + Array("WAVE".utf8)
        d += Array("fmt ".utf8) + littleEndian(UInt32(16)) + littleEndian16(1) + littleEndian16(1)
        d += littleEndian(UInt32(8000)) + littleEndian(UInt32(8000)) + littleEndian16(1) + littleEndian16(8)
        d += Array("data".utf8) + littleEndian(UInt32(samples))
        d += (0..<samples).map { ($0 / 10) % 2 == 0 ? 120 : 136 }
        return Data(d)
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(body.count)) + typeBytes + body + bigEndian(crc32(typeBytes + body))
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let size = min(65_535, data.count - offset)
            let final: UInt8 = offset + size == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(size & 0xFF), UInt8(size >> 8), UInt8(~size & 0xFF), UInt8((~size >> 8) & 0xFF)]
            out += data[offset..<offset + size]
            offset += size
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func littleEndian(_ v: UInt32) -> [UInt8] { bigEndian(v).reversed() }
    private static func littleEndian16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}
