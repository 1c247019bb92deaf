import CGIFCodec
import CVips
import CVipsShims
import Foundation
import Testing

@testable import PushMedia

/// PushMedia's own GIF decoder (`pm_gif_load`, gif_read.c). Every pixel of every frame
/// must be what libvips' own loader (libnsgif) makes of the same file, for the GIF features
/// push animations use (disposals, see-through indices, partial frames, local and missing tables,
/// interlacing, data that ends early); files it does not take are left to libvips.
@Suite("GIF decoder")
struct GIFDecoderTests {
    /// One frame of a hand-built GIF.
    struct Frame {
        var left = 0, top = 0, width: Int, height: Int
        /// Palette indices, row by row (in display order; written interlaced when asked).
        var indices: [UInt8]
        var disposal = 0
        var transparent: UInt8?
        /// A local colour table (RGB triples; its size rounded up to a power of two).
        var table: [UInt8]?
        var interlaced = false
        /// Only this many indices are coded (the data ends early)…
        var coded: Int?
        /// …followed by the end code, or not (the data sub-blocks simply end).
        var endCode = true
        /// A code the decoder's table cannot hold yet, after this many indices.
        var badCodeAfter: Int?
        /// These 9-bit codes instead of the indices'.
        var codes: [Int]?
        /// The graphic control's delay in hundredths of a second; nil: no graphic control (when
        /// there is no disposal or transparent index to give either).
        var delay: Int? = 10
    }

    /// A GIF of `frames` on a `width` × `height` screen, each frame's indices LZW-coded as
    /// literals (8-bit codes with a clear code before the table grows).
    /// `loop`: the NETSCAPE2.0 loop count written (nil: no loop extension).
    static func gif(width: Int, height: Int, global: [UInt8]?, background: UInt8 = 0, frames: [Frame], loop: Int? = 0) -> Data {
        var out = Data("GIF89a".utf8)
        func word(_ v: Int) {
            out.append(UInt8(v & 0xff))
            out.append(UInt8(v >> 8))
        }
        func tableBits(_ table: [UInt8]) -> Int {
            var bits = 1
            while (1 << bits) < table.count / 3 { bits += 1 }
            return bits
        }
        func put(_ table: [UInt8]) {
            out.append(contentsOf: table)
            out.append(contentsOf: [UInt8](repeating: 0, count: (1 << tableBits(table)) * 3 - table.count))
        }
        word(width)
        word(height)
        out.append(global.map { 0x80 | 0x70 | UInt8(tableBits($0) - 1) } ?? 0x70)
        out.append(background)
        out.append(0)
        if let global { put(global) }
        if let loop { out.append(contentsOf: [0x21, 0xff, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(loop & 0xff), UInt8(loop >> 8), 0]) }
        for frame in frames {
            if frame.delay != nil || frame.disposal != 0 || frame.transparent != nil {
                let delay = frame.delay ?? 0
                out.append(contentsOf: [
                    0x21, 0xf9, 4, UInt8(frame.disposal << 2) | (frame.transparent == nil ? 0 : 1), UInt8(delay & 0xff), UInt8(delay >> 8),
                    frame.transparent ?? 0, 0,
                ])
            }
            out.append(0x2c)
            for value in [frame.left, frame.top, frame.width, frame.height] { word(value) }
            out.append((frame.table.map { 0x80 | UInt8(tableBits($0) - 1) } ?? 0) | (frame.interlaced ? 0x40 : 0))
            if let table = frame.table { put(table) }
            var rows = Array(0..<frame.height)
            if frame.interlaced {
                rows =
                    Array(stride(from: 0, to: frame.height, by: 8)) + Array(stride(from: 4, to: frame.height, by: 8))
                    + Array(stride(from: 2, to: frame.height, by: 4)) + Array(stride(from: 1, to: frame.height, by: 2))
            }
            let ordered = rows.flatMap { frame.indices[($0 * frame.width)..<(($0 + 1) * frame.width)] }
            out.append(8)
            var codes: [Int] = [256]
            var sinceClear = 0
            for (i, index) in ordered.prefix(frame.coded ?? ordered.count).enumerated() {
                if i == frame.badCodeAfter { codes.append(400) }
                if sinceClear == 254 {
                    codes.append(256)
                    sinceClear = 0
                }
                codes.append(Int(index))
                sinceClear += 1
            }
            if frame.endCode { codes.append(257) }
            if let own = frame.codes { codes = own }
            var bytes: [UInt8] = []
            var bits = 0
            var have = 0
            for code in codes {
                bits |= code << have
                have += 9
                while have >= 8 {
                    bytes.append(UInt8(bits & 0xff))
                    bits >>= 8
                    have -= 8
                }
            }
            if have > 0 { bytes.append(UInt8(bits & 0xff)) }
            for start in stride(from: 0, to: bytes.count, by: 255) {
                let block = bytes[start..<min(start + 255, bytes.count)]
                out.append(UInt8(block.count))
                out.append(contentsOf: block)
            }
            out.append(0)
        }
        out.append(0x3b)
        return out
    }

    /// The file's frames as libvips makes them (its loader, then `vips_thumbnail_image`, as the
    /// pipeline's fallback does), and as PushMedia's decoder does (nil when it leaves the file to
    /// libvips).
    static func decoded(_ data: Data) throws -> (libvips: Vips.Image, own: Vips.Image?) {
        try Vips.start()
        let path = try Fixtures.temporaryFolder().appendingPathComponent("in.gif").path
        try data.write(to: URL(fileURLWithPath: path))
        // What the pipeline decodes without PushMedia's decoder (Decoded's libvips path).
        let header = try Vips.Image.header(from: Vips.Source(path: path), failOn: .error, allPages: true)
        let libvips = try Vips.Image.thumbnail(
            from: Vips.Source(path: path), width: header.width, height: header.pageHeight, allPages: true, colourManaged: false)
        let own = try Vips.Image.gifThumbnail(path: path, width: libvips.width, height: libvips.pageHeight, colourManaged: false)
        return (libvips, own)
    }

    /// Every byte of both decodes is the same, read whole and frame by frame out of order.
    static func expectSame(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (libvips, own) = try decoded(data)
        let mine = try #require(own, "PushMedia's decoder declined the file", sourceLocation: sourceLocation)
        #expect(mine.width == libvips.width && mine.height == libvips.height, sourceLocation: sourceLocation)
        #expect(mine.bands == libvips.bands && mine.pageHeight == libvips.pageHeight, sourceLocation: sourceLocation)
        let expected = try libvips.memoryBytes()
        #expect(try mine.memoryBytes() == expected, "every frame, in order", sourceLocation: sourceLocation)
        let frames = libvips.height / libvips.pageHeight
        let frameBytes = expected.count / frames
        for index in [frames - 1, 0, frames / 2, frames / 2 - 1, frames - 1].filter({ $0 >= 0 }) {
            let frame = try mine.extractArea(left: 0, top: index * mine.pageHeight, width: mine.width, height: mine.pageHeight)
            #expect(
                try frame.memoryBytes() == expected.subdata(in: index * frameBytes..<(index + 1) * frameBytes),
                "frame \(index) read alone", sourceLocation: sourceLocation)
        }
    }

    /// 16 distinct colours.
    static let palette: [UInt8] = (0..<16).flatMap { (i: Int) -> [UInt8] in
        let red = UInt8(i * 16)
        let green = UInt8(255 - i * 16)
        let blue = UInt8((i * 53) & 0xff)
        return [red, green, blue]
    }

    static func pattern(_ width: Int, _ height: Int, seed: Int, colours: Int = 16) -> [UInt8] {
        (0..<(width * height)).map { (i: Int) -> UInt8 in UInt8((i * 7 + i / width * 3 + seed * 5) % colours) }
    }

    @Test("Frames over one another with every disposal, see-through indices and the background")
    func disposals() throws {
        for transparent in [nil, UInt8(3)] {
            let frames = (0..<8).map { n in
                Frame(
                    left: n == 0 ? 0 : (n * 5) % 20, top: n == 0 ? 0 : (n * 3) % 12, width: n == 0 ? 40 : 17, height: n == 0 ? 24 : 9,
                    indices: Self.pattern(n == 0 ? 40 : 17, n == 0 ? 24 : 9, seed: n), disposal: [1, 2, 3, 0, 3, 2, 1, 0][n],
                    transparent: n % 2 == 0 ? transparent : nil)
            }
            try Self.expectSame(Self.gif(width: 40, height: 24, global: Self.palette, background: 5, frames: frames))
        }
    }

    @Test("A first frame smaller than the screen: the rest stays see-through (black without alpha)")
    func partialFirstFrame() throws {
        let frames = [
            Frame(left: 4, top: 2, width: 10, height: 6, indices: Self.pattern(10, 6, seed: 1)),
            Frame(left: 0, top: 0, width: 30, height: 20, indices: Self.pattern(30, 20, seed: 2), transparent: 0),
        ]
        try Self.expectSame(Self.gif(width: 30, height: 20, global: Self.palette, frames: frames))
        var opaque = frames
        opaque[1].transparent = nil
        try Self.expectSame(Self.gif(width: 30, height: 20, global: Self.palette, frames: opaque))
    }

    @Test("Local tables (indices beyond a small one read what libnsgif's table holds), no global table, interlacing")
    func tablesAndInterlacing() throws {
        let small: [UInt8] = [200, 10, 10, 10, 200, 10]
        let frames = [
            Frame(width: 33, height: 21, indices: Self.pattern(33, 21, seed: 0, colours: 16), table: Self.palette, interlaced: true),
            Frame(left: 3, top: 3, width: 20, height: 11, indices: Self.pattern(20, 11, seed: 4, colours: 6), table: small),
            Frame(left: 1, top: 2, width: 9, height: 17, indices: Self.pattern(9, 17, seed: 2, colours: 4), interlaced: true),
        ]
        try Self.expectSame(Self.gif(width: 33, height: 21, global: nil, frames: frames))
        try Self.expectSame(Self.gif(width: 33, height: 21, global: Array(Self.palette.prefix(12)), background: 9, frames: frames))
    }

    @Test("A frame whose data ends early draws what it has; where libvips' loader fails, this decoder fails too")
    func dataEndingEarly() throws {
        // Frames of 20×12 indices coded as these 9-bit codes (256 clears, 257 ends), alone or
        // after others; whatever the data, both decoders succeed with the same pixels or both fail.
        let lists: [[Int]] = [
            [1, 2, 3, 257], [256, 256, 1, 2, 257], [1, 2, 3], [256, 1, 2, 258, 259, 257], [256, 1, 2, 256, 4, 5, 257],
            [256], [], [256, 1, 2, 3, 256, 257], [256, 256, 257], [257], [256, 1, 300], [256, 258],
        ]
        var failures = 0
        for list in lists {
            let frames = [
                Frame(width: 24, height: 16, indices: Self.pattern(24, 16, seed: 0)),
                Frame(left: 2, top: 2, width: 20, height: 12, indices: Self.pattern(20, 12, seed: 3), codes: list),
            ]
            let (libvips, own) = try Self.decoded(Self.gif(width: 24, height: 16, global: Self.palette, frames: frames))
            let mine = try #require(own)
            switch (Result { try libvips.memoryBytes() }, Result { try mine.memoryBytes() }) {
            case (.success(let expected), .success(let got)): #expect(got == expected, "codes \(list)")
            case (.failure, .failure): failures += 1
            case (let expected, let got): Issue.record("codes \(list): libvips \(expected), PushMedia \(got)")
            }
        }
        #expect(failures == 5, "an end code first after a clear, and codes the table does not hold")
        // Indices coded up to a point, the frame then drawn as far as they go.
        var partial = [
            Frame(width: 24, height: 16, indices: Self.pattern(24, 16, seed: 0)),
            Frame(left: 2, top: 2, width: 20, height: 12, indices: Self.pattern(20, 12, seed: 3), coded: 130),
            Frame(width: 24, height: 16, indices: Self.pattern(24, 16, seed: 5), coded: 9, endCode: false),
        ]
        try Self.expectSame(Self.gif(width: 24, height: 16, global: Self.palette, frames: partial))
        // Without an end code, the data can end exactly after a code (a clear and 7 codes of 9
        // bits: 9 bytes), which libnsgif drops.
        partial[2].coded = 7
        try Self.expectSame(Self.gif(width: 24, height: 16, global: Self.palette, frames: partial))
    }

    @Test("A code the table does not hold fails the read, as libvips' loader fails")
    func corruptData() throws {
        let frames = [
            Frame(width: 24, height: 16, indices: Self.pattern(24, 16, seed: 0)),
            Frame(width: 24, height: 16, indices: Self.pattern(24, 16, seed: 1), badCodeAfter: 40),
        ]
        let (libvips, own) = try Self.decoded(Self.gif(width: 24, height: 16, global: Self.palette, frames: frames))
        let mine = try #require(own)
        #expect(throws: Vips.Error.self) { try libvips.memoryBytes() }
        #expect(throws: Vips.Error.self) { try mine.memoryBytes() }
        // The frame before it reads.
        #expect(try mine.extractArea(left: 0, top: 0, width: 24, height: 16).memoryBytes().count == 24 * 16 * 3)
    }

    static func bytes(hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return data
    }

    /// libvips' loader's first frame alone (n=1: nothing after it is read).
    static func firstFrame(_ data: Data) throws -> Data {
        let path = try Fixtures.temporaryFolder().appendingPathComponent("in.gif").path
        try data.write(to: URL(fileURLWithPath: path))
        return try Vips.Image.header(from: Vips.Source(path: path), failOn: .error, allPages: false).memoryBytes()
    }

    @Test("Review cases: a restart from the first frame forgets later frames' local tables; a failed frame leaves no half-drawn state")
    func reviewCases() throws {
        // 1×1, three frames, no global table; frame 0's 2-entry local table is indexed at 2
        // (libnsgif's zeroed table: black), later frames have bigger tables. Frames 1 and 2 are
        // read first, then frame 0 (a restart).
        let tables = Self.bytes(
            hex:
                "474946383961010001000000002c00000000010001008010203040506002025401002c000000000100010081000000000000ff000000000002024401002c00000000010001000002024401003b"
        )
        let mine = try #require(try Self.decoded(tables).own)
        let frame = { (index: Int) in try mine.extractArea(left: 0, top: index, width: 1, height: 1).memoryBytes() }
        _ = try frame(1)
        _ = try frame(2)
        #expect(try frame(0) == Self.firstFrame(tables))
        #expect(try frame(0) == Data([0, 0, 0]))
        // Frame 0 green with disposal 2 on a red background, frame 1 a bad code: frame 0 read
        // again after frame 1 failed is still frame 0.
        let failing = Self.bytes(
            hex:
                "47494638396104000400f10000ff000000ff000000ffffffff21f90408000000002c000000000400040000020d0cc3300cc3300cc3300cc33005002c0000000004000400000202d40f003b"
        )
        let second = try #require(try Self.decoded(failing).own)
        let frame0 = try Self.firstFrame(failing)
        let first = { try second.extractArea(left: 0, top: 0, width: 4, height: 4).memoryBytes() }
        #expect(try first() == frame0)
        #expect(throws: Vips.Error.self) { try second.extractArea(left: 0, top: 4, width: 4, height: 4).memoryBytes() }
        #expect(try first() == frame0)
    }

    @Test("A damaged frame that only the encoding pass reaches fails the item as corrupt input, like one the subject search reaches")
    func damagedLateFrame() throws {
        // 100 frames: the representative frame is looked for on every other one (0…98), so a bad
        // code in frame 99 is first read when the expanded GIF is encoded.
        let folder = try Fixtures.temporaryFolder()
        for damaged in [1, 99] {
            let frames = (0..<100).map { n in
                Frame(width: 32, height: 16, indices: Self.pattern(32, 16, seed: n), badCodeAfter: n == damaged ? 40 : nil)
            }
            let source = folder.appendingPathComponent("damaged-\(damaged).gif")
            try Self.gif(width: 32, height: 16, global: Self.palette, frames: frames).write(to: source)
            let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
                .process(InputFile(path: source.path, source: source.lastPathComponent))
            #expect(item.status == .failed)
            #expect(item.error?.code == .corruptInput, "frame \(damaged): \(item.error?.message ?? "ok")")
            #expect(item.error?.message.contains("frame \(damaged): corrupt image data") == true)
        }
    }

    @Test(
        "Files it does not take are left to libvips: a frame outside the screen, a truncated file, a screen size libnsgif replaces, a last frame libnsgif does not count, an empty extension libnsgif reads past"
    )
    func declined() throws {
        let inside = Frame(width: 20, height: 10, indices: Self.pattern(20, 10, seed: 0))
        var outside = inside
        outside.left = 5
        let truncated = Self.gif(width: 20, height: 10, global: Self.palette, frames: [inside, inside]).dropLast(6)
        // Two frames with an empty extension (label 1, no block but the terminator) between them:
        // libnsgif takes the second frame's bytes for the extension's blocks and shows one frame.
        let one = Self.gif(width: 20, height: 10, global: Self.palette, frames: [inside])
        let two = Self.gif(width: 20, height: 10, global: Self.palette, frames: [inside, inside])
        let emptyExtension = one.dropLast() + Data([0x21, 0x01, 0x00]) + two[(one.count - 1)...]
        for data in [
            Self.gif(width: 20, height: 10, global: Self.palette, frames: [inside, outside]), Data(truncated), Data(emptyExtension),
            Self.gif(width: 640, height: 480, global: Self.palette, frames: [inside, inside]),
            // A last frame whose data is its code size and a terminator, ending the file: libnsgif
            // does not count it.
            Self.bytes(hex: "47494638396104000400f10000ff000000ff000000ffffffff2c00000000040004000002085c66223070d24601002c0000000004000400000200"),
        ] {
            let path = try Fixtures.temporaryFolder().appendingPathComponent("in.gif").path
            try data.write(to: URL(fileURLWithPath: path))
            #expect(try Vips.Image.gifThumbnail(path: path, width: 640, height: 480, colourManaged: false) == nil)
        }
    }

    @Test("Real GIFs: the fixtures and gif.py's animations (Pillow: local tables, partial frames) decode as libvips decodes them")
    func realFiles() throws {
        for fixture in ["graphics/animated.gif", "graphics/still.gif"] {
            try Self.expectSame(try Data(contentsOf: Fixtures.url(fixture)))
        }
        let folder = try Fixtures.temporaryFolder()
        for name in ["screen-recording", "text-banner", "product-badge"] {
            let file = folder.appendingPathComponent("\(name).gif")
            try Fixtures.benchmarkGIF(name, to: file, width: 320, height: 160, frames: 24)
            try Self.expectSame(try Data(contentsOf: file))
        }
    }
}
