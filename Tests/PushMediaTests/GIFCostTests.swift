import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("GIF limits by cost")
struct GIFCostTests {
    /// A GIF of `frames` one-pixel frames (each with a graphic control) on a `width`×`height`
    /// screen: tiny on disk, hostile to a loader that keeps every frame or trusts the screen.
    static func onePixelFrames(width: UInt16, height: UInt16, frames: Int) -> Data {
        gif(width: width, height: height, frames: frames, frame: [0x2c] + word(0) + word(0) + word(1) + word(1) + [0] + [2, 2, 0x44, 1, 0])
    }

    /// A GIF of `frames` frames that each code the whole `width`×`height` screen in one colour: a
    /// few KB a frame on disk, every pixel of it coded.
    static func fullFrames(width: UInt16, height: UInt16, frames: Int) -> Data {
        let codes = uniformLZW(pixels: Int(width) * Int(height), minimumCodeSize: 2)
        var blocks: [UInt8] = []
        for start in stride(from: 0, to: codes.count, by: 255) {
            let end = min(start + 255, codes.count)
            blocks += [UInt8(end - start)] + codes[start..<end]
        }
        let frame: [UInt8] = [0x2c] + word(0) + word(0) + word(width) + word(height) + [0] + [2] + blocks + [0]
        return gif(width: width, height: height, frames: frames, frame: frame)
    }

    private static func word(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }

    /// A two-colour looping GIF of `frames` copies of `frame` (an image descriptor and its data),
    /// each after a graphic control of 10 ms.
    private static func gif(width: UInt16, height: UInt16, frames: Int, frame: [UInt8]) -> Data {
        var bytes = Array("GIF89a".utf8) + word(width) + word(height) + [0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]
        bytes += [0x21, 0xff, 0x0b] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        let control: [UInt8] = [0x21, 0xf9, 4, 0, 1, 0, 0, 0]
        bytes.reserveCapacity(bytes.count + (control.count + frame.count) * frames + 1)
        for _ in 0..<frames { bytes += control + frame }
        return Data(bytes + [0x3b])
    }

    /// GIF's LZW code stream (packed least significant bit first) of `pixels` pixels of colour 0.
    /// With one colour every new string is the longest one plus a pixel, so the table is a
    /// count: code `c` above the end code stands for `c - end + 1` pixels.
    private static func uniformLZW(pixels: Int, minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        var width = minimumCodeSize + 1
        func emit(_ code: Int) {
            buffer |= code << bits
            bits += width
            while bits >= 8 {
                out.append(UInt8(buffer & 0xff))
                buffer >>= 8
                bits -= 8
            }
        }
        func length(_ code: Int) -> Int { code == 0 ? 1 : code - end + 1 }
        emit(clear)
        var next = end + 1 // the code the next new string gets
        var current = 0 // the code of the string matched so far: the first pixel
        for _ in 1..<max(1, pixels) {
            if length(current) < (next - 1 > end ? length(next - 1) : 1) {
                // The match one pixel longer is in the table.
                current = current == 0 ? end + 1 : current + 1
                continue
            }
            // It is not: emit the match, add it plus this pixel, and start again at this pixel.
            emit(current)
            let added = next
            next += 1
            if added >= 1 << width { width += 1 }
            if added == 4095 {
                emit(clear)
                width = minimumCodeSize + 1
                next = end + 1
            }
            current = 0
        }
        emit(current)
        emit(end)
        if bits > 0 { out.append(UInt8(buffer & 0xff)) }
        return out
    }

    @Test("hostile GIFs are refused from their scan, before libvips reads them: every frame counted, the declared screen weighed")
    func hostile() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Self.onePixelFrames(width: 16, height: 16, frames: 100_000).write(to: input.appendingPathComponent("empty.gif"))
        try Self.onePixelFrames(width: 65535, height: 65535, frames: 100).write(to: input.appendingPathComponent("screen.gif"))
        let out = folder.appendingPathComponent("out")
        // Peak memory of the whole run: libvips' loader holding 100,000 frames took 536 MB.
        let run = try CommandRunner.peakMemory(CommandRunner.pushmedia, ["process", input.path, "--out", out.path])
        #expect(run.status == 1, "\(run.parent.output) \(run.parent.error)")
        #expect(run.peakMiB < 160, "peak RSS \(run.peakMiB) MiB")

        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let empty = try #require(manifest.items.first { $0.source == "empty.gif" })
        #expect(empty.error?.code == .tooManyFrames)
        #expect(empty.error?.message == "the animation has 100000 frames, over the limit of 1000")
        #expect(empty.probe?.frames == 100_000)
        let screen = try #require(manifest.items.first { $0.source == "screen.gif" })
        #expect(screen.error?.code == .tooManyPixels)
        #expect(screen.error?.message.contains("65535×65535") == true, "\(screen.error?.message ?? "ok")")
        #expect(screen.probe?.width == 65535)
    }

    @Test("the frame limit a user sets is checked on the count, however many frames the file has")
    func frameLimit() throws {
        let folder = try Fixtures.temporaryFolder()
        let path = folder.appendingPathComponent("many.gif")
        try Self.onePixelFrames(width: 4, height: 4, frames: 1500).write(to: path)
        var profile = Profile()
        profile.limits.maxFrames = 2000
        let processor = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
        let taken = processor.process(InputFile(path: path.path, source: "many.gif"))
        #expect(taken.status == .ok, "\(taken.error?.message ?? "")")
        #expect(taken.probe?.frames == 1500)
        profile.limits.maxFrames = 1499
        let refused = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: path.path, source: "many.gif"))
        #expect(refused.error?.code == .tooManyFrames)
        #expect(refused.error?.message == "the animation has 1500 frames, over the limit of 1499")
    }

    @Test(
        "the cost model: designer-size GIFs fit the time limit, reduced by PushMedia's decoder or not; libvips fitting every frame is weighed; costs add up by frame"
    )
    func model() {
        func facts(_ side: Int, _ frames: Int) -> GIFFacts {
            GIFFacts(screen: PixelSize(width: side, height: side), frames: frames, codedPixels: Double(side * side * frames))
        }
        let limit = Profile.Limits().timeoutSeconds
        #expect(AnimationCost(facts(1200, 200), fitting: .none).seconds < limit)
        #expect(AnimationCost(facts(2048, 120), fitting: .reduced).seconds < limit)
        #expect(AnimationCost(facts(2048, 480), fitting: .reduced).seconds < limit)
        #expect(AnimationCost(facts(2048, 480), fitting: .libvips).seconds > limit)
        #expect(AnimationCost(facts(2048, 120), fitting: .libvips).seconds > AnimationCost(facts(2048, 120), fitting: .reduced).seconds)
        // Costs add up frame by frame: twice the frames, about twice the time.
        for fitting in [AnimationCost.Fitting.none, .reduced, .libvips] {
            let one = AnimationCost(facts(1000, 100), fitting: fitting).seconds
            #expect(abs(AnimationCost(facts(1000, 200), fitting: fitting).seconds - 2 * one) < 1e-9)
        }
    }

    @Test(
        "how frames are fitted is decided as the decode stage fits them: none inside the decode size, PushMedia's decoder up to its reduction's limit, libvips for colour management, a larger shrink or another decoder"
    )
    func fittingDecided() {
        let decode = PixelSize(width: 1200, height: 1200)
        func fitting(_ w: Int, _ h: Int, colourManaged: Bool = false, ownDecoder: Bool = true) -> AnimationCost.Fitting {
            AnimationCost.fitting(
                screen: PixelSize(width: w, height: h), decode: decode, colourManaged: colourManaged, ownDecoder: ownDecoder)
        }
        #expect(fitting(1200, 1200) == .none)
        #expect(fitting(1, 1) == .none)
        #expect(fitting(1200, 1200, colourManaged: true) == .libvips)
        #expect(fitting(2048, 2048) == .reduced)
        #expect(fitting(1201, 7) == .reduced)
        #expect(fitting(1200 * 16, 1) == .reduced)
        #expect(fitting(1200 * 16 + 1, 1) == .libvips)
        // The long side shrinks 16 times, the short one (199 → 12) more: libvips fits it.
        #expect(fitting(1200 * 16, 199) == .libvips)
        #expect(fitting(1200 * 16, 192) == .reduced)
        #expect(fitting(2048, 2048, ownDecoder: false) == .libvips)
        #expect(fitting(2048, 2048, colourManaged: true) == .libvips)
    }

    @Test("an animation over what the time limit can finish is refused before it is decoded, with the estimate")
    func refusedByCost() throws {
        let folder = try Fixtures.temporaryFolder()
        // 800 frames that each code the whole 2048×2048 screen: about 67 s by the model, over
        // the default limit of 60 s. The item's time is not what refuses it: the refusal comes
        // from the scan's facts, long before 60 s could pass.
        let path = folder.appendingPathComponent("full.gif")
        try Self.fullFrames(width: 2048, height: 2048, frames: 800).write(to: path)
        let profile = Profile()
        let processor = ItemProcessor(profile: profile, options: ProcessingOptions(outputDirectory: folder))
        let item = processor.process(InputFile(path: path.path, source: "full.gif"))
        #expect(item.error?.code == .tooManyFrames)
        let message = item.error?.message ?? ""
        let coded = 800 * 2048 * 2048
        let facts = GIFFacts(screen: PixelSize(width: 2048, height: 2048), frames: 800, codedPixels: Double(coded))
        let estimate = AnimationCost.formatted(AnimationCost(facts, fitting: .reduced).seconds)
        #expect(estimate == "67")
        #expect(message.hasPrefix("800 frames of 2048×2048 (\(coded) pixels coded) would take about 67 s"), "\(message)")
        #expect(message.hasSuffix("over the limit of 60 s (limits.timeoutSeconds)"), "\(message)")
        #expect(item.probe?.frames == 800)

        // As many frames of the same screen that each code one pixel fit the time limit.
        let sparse = folder.appendingPathComponent("sparse.gif")
        try Self.onePixelFrames(width: 2048, height: 2048, frames: 800).write(to: sparse)
        let kept = processor.process(InputFile(path: sparse.path, source: "sparse.gif"))
        #expect(kept.error == nil, "\(kept.error?.message ?? "")")

        // The full frames are real ones: two of them decode to the whole screen.
        let two = folder.appendingPathComponent("two.gif")
        try Self.fullFrames(width: 2048, height: 2048, frames: 2).write(to: two)
        let decoded = processor.process(InputFile(path: two.path, source: "two.gif"))
        #expect(decoded.error == nil, "\(decoded.error?.message ?? "")")
        #expect(decoded.probe?.width == 2048 && decoded.probe?.frames == 2)
    }

    @Test("a large GIF fitted to the decode size once: ok, animated, within budget, its duration kept, no temporary file left")
    func fittedOnce() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // 1601×1601 (odd) × 64 frames: 164 M source pixels, over Animation.fitOnceSourcePixels,
        // and larger than the decode size, so every frame is fitted.
        let source = input.appendingPathComponent("large.gif")
        try GIFEncodingTests.makeBadgeGIF(source, width: 1601, height: 1601, frames: 64)
        let file = try #require(try GIFFile.open(path: source.path))
        let plan = ImagePlan(source: file.frameSize, profile: .default)
        #expect(DecodePath.gifNeedsFitting(frame: file.frameSize, inside: plan.decode, colourManaged: false))
        #expect(
            Animation(frames: .gif(file, fit: nil), frameSize: file.frameSize, delays: file.delays, loop: 0)
                .fitsOnce(source: file.frameSize))
        let out = folder.appendingPathComponent("out")
        let result = try CommandRunner.run(CommandRunner.pushmedia, ["process", input.path, "--out", out.path])
        #expect(result.status == 0, "\(result.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let item = try #require(manifest.items.first)
        #expect(item.status == .ok, "\(item.error?.message ?? "")")
        #expect((item.delivery?.bytes ?? .max) <= Profile.default.delivery.notificationBytes)
        let expanded = try #require(item.attachment(.expanded))
        let gif = try GIFReader.read(Data(contentsOf: out.appendingPathComponent(expanded.file)))
        #expect(gif.frames >= 2)
        #expect(expanded.width == 2 * (expanded.height ?? 0))
        let duration = Double(file.delays.reduce(0, +))
        #expect(abs(Double(gif.delays.reduce(0, +)) - duration) <= duration * 0.05)
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".pushmedia-") }
        #expect(left.isEmpty, "\(left)")
    }
}
