import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Input safety limits")
struct SafetyLimitTests {
    /// A PNG whose header claims `width`×`height` pixels, with a tiny body: a decompression bomb
    /// as far as the header goes.
    static func bombPNG(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = crc32(typed)
            return be(UInt32(body.count)) + typed + be(crc)
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        let ihdr = be(width) + be(height) + [8, 2, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", []))
    }

    /// CRC-32 (IEEE) as PNG chunks need it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("a 30000×30000 PNG bomb is refused from its header, with low peak memory")
    func bomb() throws {
        let folder = try Fixtures.temporaryFolder()
        try Self.bombPNG(width: 30_000, height: 30_000).write(to: folder.appendingPathComponent("bomb.png"))
        let out = try Fixtures.temporaryFolder("bombout")
        // The real binary, under a parent that reports its peak RSS.
        let run = try CommandRunner.peakMemory(CommandRunner.pushmedia, ["process", folder.path, "--out", out.path])
        #expect(run.status == 1, "\(run.parent.output) \(run.parent.error)")
        #expect(run.peakMiB < 120, "peak RSS \(run.peakMiB) MiB")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.first?.error?.code == .tooManyPixels)
        #expect(manifest.items.first?.probe?.width == 30_000)
    }

    @Test("frame, animation-pixel and file-size limits give their own codes")
    func otherLimits() throws {
        var frames = Profile()
        frames.limits.maxFrames = 10
        #expect(try ImagePipelineTests.process("graphics/animated.gif", profile: frames).0.error?.code == .tooManyFrames)

        var total = Profile()
        total.limits.maxAnimationPixels = 320 * 200 * 20
        let (item, _) = try ImagePipelineTests.process("graphics/animated.gif", profile: total)
        #expect(item.error?.code == .tooManyFrames)
        #expect(item.error?.message.contains("pixels in all") == true)

        var bytes = Profile()
        bytes.limits.maxInputBytes = 10_000
        let (large, _) = try ImagePipelineTests.process("photos/landscape.jpg", profile: bytes)
        #expect(large.error?.code == .inputTooLarge)
        #expect(large.sourceSHA256 == nil, "refused before it was read")

        var pixels = Profile()
        pixels.limits.maxPixels = 1_000_000
        #expect(try ImagePipelineTests.process("photos/landscape.jpg", profile: pixels).0.error?.code == .tooManyPixels)
    }

    @Test("a timed-out item is stopped mid-decode and the next item is fine")
    func timeout() throws {
        let folder = try Fixtures.temporaryFolder()
        // A large PNG (no shrink-on-load): decoding it takes far longer than the limit.
        let big = try BudgetTests.noiseFile(folder, "big.png", width: 6000, height: 6000, seed: 11, png: true)
        // The limit starts with the item: on a machine loaded by parallel tests, reading and
        // hashing the 100 MB file can use up 0.3 s before the decode starts ("before decode"); then
        // the limit is doubled and the item run again, until the time runs out inside the decode.
        var slow = Item.failed(source: "big.png", error: ItemError(.internalError, "not run"))
        for limit in [0.3, 0.6, 1.2] {
            var profile = Profile()
            profile.limits.timeoutSeconds = limit
            slow = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
                .process(InputFile(path: big.path, source: "big.png"))
            let message = slow.error?.message ?? ""
            guard ["probe", "limits", "decode"].contains(where: { message.hasSuffix("reached before \($0)") }) else { break }
        }
        #expect(slow.error?.code == .timeout, "\(slow.error?.message ?? "ok")")
        #expect(slow.error?.message.contains("decoding") == true, "stopped during the decode: \(slow.error?.message ?? "")")
        // Same process, default limits (the 0.3 s limit is for the slow item, not a load-sensitive
        // bar for the next one): libvips' kill flag and error state must not carry over.
        let next = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: Fixtures.url("photos/landscape.jpg").path, source: "landscape.jpg"))
        #expect(next.status == .ok, "\(next.error?.message ?? "")")
    }
}
