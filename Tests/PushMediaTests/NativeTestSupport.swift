import CPushMediaTestSupport

@testable import PushMedia

extension Vips.Image {
    /// Seeded 8-bit sRGB noise (`pm_noise_rgb`, test-only C): the hardest content to compress,
    /// for budgets and timeouts.
    static func noise(width: Int, height: Int, sigma: Double = 40, seed: Int = 1) throws -> Vips.Image {
        try Vips.start()
        return try Vips.call("noise") { pm_noise_rgb($0, Int32(width), Int32(height), sigma, Int32(seed)) }
    }
}

extension GIFFileCut {
    /// The cut written straight from the decoder and finished as the pipeline finishes it
    /// (``Animation/gifAttempt(scale:_:)``: re-packed where the settings say).
    func gifAttempt(frames: [Int], delays: [Int], loop: Int, _ settings: GIFSettings, until deadline: Deadline?) throws -> GIFAttempt {
        try writtenGIF(frames: frames, delays: delays, loop: loop, settings, until: deadline).finished(settings)
    }
}
