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
