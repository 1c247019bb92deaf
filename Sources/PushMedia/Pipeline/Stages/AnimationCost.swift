import PushMediaModel

/// What making an animated GIF's outputs costs, estimated from its scan before a pixel is
/// decoded: a pure model of PushMedia's own rates, measured in a release build on one core of a
/// 2-core machine (docs/configuration.md#what-an-animation-may-cost). An item whose estimate is
/// over `limits.timeoutSeconds` would time out: it is refused up front, with the numbers.
struct AnimationCost: Sendable, Equatable {
    /// Seconds a source pixel costs once decoded (LZW into indices, drawn on the canvas, read
    /// by the passes), of every frame's own rectangle: 8.0 s for 288 M pixels of full frames.
    static let secondsPerCodedPixel = 20e-9
    /// Seconds a pixel of the screen costs, frames × screen, when the frames are larger than the
    /// decode size (or colour-managed) and libvips fits every one of them once: 32.7 s for 120
    /// frames of 2048×2048.
    static let secondsPerFittedPixel = 60e-9
    /// What a frame costs whatever its size (its blocks, its palette, the writer's frame).
    static let secondsPerFrame = 50e-6

    /// The estimate, in seconds of one core.
    var seconds: Double

    /// The cost of `facts`, fitted when its frames must be brought to the decode size.
    init(_ facts: GIFFacts, fitted: Bool) {
        let screen = Double(facts.screen.width) * Double(facts.screen.height) * Double(facts.frames)
        seconds =
            facts.codedPixels * Self.secondsPerCodedPixel + (fitted ? screen * Self.secondsPerFittedPixel : 0)
            + Double(facts.frames) * Self.secondsPerFrame
    }

    /// Refuses a GIF the item's time limit cannot finish (`too_many_frames`, with the estimate).
    static func check(_ image: ProbedImage, profile: Profile) throws {
        guard let facts = image.gif, image.isAnimation else { return }
        let plan = ImagePlan(source: image.size, profile: profile)
        let fitted = DecodePath.gifNeedsFitting(
            frame: facts.screen, inside: plan.decode, colourManaged: image.needsColourManagement)
        let cost = AnimationCost(facts, fitted: fitted)
        let limit = profile.limits.timeoutSeconds
        if cost.seconds > limit {
            throw ItemError(
                .tooManyFrames,
                "\(facts.frames) frames of \(facts.screen.width)×\(facts.screen.height) (\(Int(facts.codedPixels.rounded())) pixels "
                    + "coded\(fitted ? ", every frame resized" : "")) would take about \(String(format: "%.0f", cost.seconds)) s, "
                    + "over the limit of \(String(format: "%g", limit)) s (limits.timeoutSeconds)")
        }
    }
}
