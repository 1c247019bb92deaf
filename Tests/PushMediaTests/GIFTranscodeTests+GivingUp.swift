import CPushMediaTestSupport
import CVips
import CVipsShims
import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// Where the writer gives up past a byte bound, and what the failure then says.
extension GIFTranscodeTests {
    @Test(
        "Past a byte bound the writer gives up: both ways at the same frame, reporting the bytes written (over the bound, under the whole GIF); under it, the same bytes",
        arguments: [(160, 80), (16, 8)]) // 16×8: all twelve frames in one strip of libvips' sink
    func givingUp(width: Int, height: Int) throws {
        let animation = try Self.benchmarkAnimation("noisy", width: width, height: height, frames: 12)
        let cut = try #require(animation.directCut)
        var plain = GIFSettings(paletteBits: 8)
        plain.repack = false
        let whole = try animation.gifData(plain).data.count
        for fraction in [0.1, 1.0 / 3, 0.8, 0.9] {
            var bounded = plain
            bounded.giveUpAbove = Int(Double(whole) * fraction)
            let direct = try cut.gifAttempt(frames: animation.indices, delays: animation.delays, loop: 0, bounded, until: nil)
            let throughLibvips = try Self.viaLibvips(animation).gifAttempt(bounded).attempt
            guard case .gaveUp(let written) = direct else {
                Issue.record("\(fraction) of \(whole) B: not given up (\(direct))")
                continue
            }
            #expect(throughLibvips == direct, "the libvips path gave up elsewhere: \(throughLibvips) against \(direct)")
            // Stopped after the frame that passed the bound: over it, under the whole, and by
            // less than a frame's worth (noise costs about the same every frame).
            let frame = whole / animation.frameCount
            #expect(written > bounded.giveUpAbove! && written < whole, "\(written) B written, bound \(bounded.giveUpAbove!) B, whole \(whole) B")
            #expect(written <= max(bounded.giveUpAbove!, 2 * frame) + 2 * frame, "\(written) B written, bound \(bounded.giveUpAbove!) B")
        }
        // A bound never passed changes nothing, re-packed or not.
        for repack in [false, true] {
            var settings = plain
            settings.repack = repack
            var bounded = settings
            bounded.giveUpAbove = whole
            let unbounded = try animation.gifData(settings).data
            #expect(try cut.gifAttempt(frames: animation.indices, delays: animation.delays, loop: 0, bounded, until: nil) == .gif(unbounded))
            #expect(try Self.viaLibvips(animation).gifAttempt(bounded).attempt == .gif(unbounded))
        }
    }

    @Test("libimagequant quantises on the writing thread alone: no OpenMP team beside the item's own thread")
    func quantiserThreads() async throws {
        // Noise: every frame has more colours than a palette, so each one is quantised.
        let animation = try Self.benchmarkAnimation("noisy", width: 160, height: 80, frames: 4)
        let (cut, frames, delays) = (try #require(animation.directCut), animation.indices, animation.delays)
        // A fresh thread starts from OpenMP's default (a thread per core); the writer runs on
        // the thread that calls it.
        let (before, after, written) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let before = pm_gif_quantiser_threads()
                let gif = try? cut.gifAttempt(frames: frames, delays: delays, loop: 0, GIFSettings(paletteBits: 8), until: nil)
                continuation.resume(returning: (before, pm_gif_quantiser_threads(), gif?.data?.count ?? 0))
            }
        }
        #expect(written > 0, "the GIF was written")
        #expect(before != -1, "libgomp is not loaded: is libimagequant built without OpenMP?")
        if ProcessInfo.processInfo.environment["OMP_NUM_THREADS"] == nil {
            #expect(before == ProcessInfo.processInfo.activeProcessorCount, "OpenMP's default on a fresh thread")
        }
        #expect(after == 1, "after writing, libimagequant would use \(after) threads")
    }

    @Test("One costly frame early, then nothing moves: giving up after it reports what was written, not that frame times the rest")
    func givingUpAfterACostlyFrame() throws {
        // The review's case: frame 1 noise, frames 2–12 one other noise, so the GIF is about two
        // frames' worth. An extrapolation from frame 2 said ten times that, and the ladder then
        // skipped rungs that fit.
        let frames = try (0..<12).map { try Vips.Image.noise(width: 96, height: 48, sigma: 60, seed: $0 == 0 ? 1 : 2) }
        var plain = GIFSettings(paletteBits: 8)
        plain.repack = false
        let source = try Self.write(try Animation(frames: frames, delays: frames.map { _ in 100 }, loop: 0).gifData(plain).data)
        let animation = try Self.animation(source)
        let whole = try animation.gifData(plain).data.count
        var bounded = plain
        bounded.giveUpAbove = whole * 3 / 4
        let cut = try #require(animation.directCut)
        for attempt in [
            try cut.gifAttempt(frames: animation.indices, delays: animation.delays, loop: 0, bounded, until: nil),
            try Self.viaLibvips(animation).gifAttempt(bounded).attempt,
        ] {
            guard case .gaveUp(let written) = attempt else {
                Issue.record("not given up: \(attempt)")
                continue
            }
            #expect(written > bounded.giveUpAbove! && written <= whole, "\(written) B written, whole \(whole) B")
        }
    }

    @Test("A GIF that cannot fit: the attempts given up are named as lower bounds, the smallest (the last rung, finished) as a size")
    func givenUpInTheFailure() throws {
        let animation = try Self.benchmarkAnimation("noisy", width: 160, height: 80, frames: 12)
        do {
            _ = try ImageEncoder.encode(
                .animation(animation), role: .expanded, as: .gif, budget: 300, profile: .default, deadline: .now + .seconds(120))
            Issue.record("a noisy GIF fitted 300 bytes")
        } catch let error as ItemError {
            #expect(error.code == .overBudget)
            #expect(error.message.contains("full size: over ") && error.message.contains("(given up part way)"), "\(error.message)")
            #expect(!error.message.contains("was over"), "the smallest attempt is the last rung, finished: \(error.message)")
        }
    }

}
