import CReduce
import PushMediaModel

/// What making an animated GIF's outputs costs, estimated from its scan before a pixel is
/// decoded: a pure model of PushMedia's own rates, measured in a release build on one core of a
/// 2-core machine (docs/configuration.md#what-an-animation-may-cost). An item whose estimate is
/// over `limits.timeoutSeconds` would time out: it is refused up front, with the numbers.
struct AnimationCost: Sendable, Equatable {
    /// How frames larger than the decode size (or colour-managed) are brought to it.
    enum Fitting: Sendable, Equatable {
        /// Not at all: the frames are read as they are.
        case none
        /// By PushMedia's decoder, reducing only what each frame changes (``GIFFileCut``), once.
        case reduced
        /// By libvips, every pixel of every frame (colour management, or a file its decoder
        /// leaves to libvips).
        case libvips
    }

    /// Seconds a source pixel costs once decoded (LZW into indices, drawn on the canvas, read
    /// by the passes; reduced once first when the frames are fitted by PushMedia's decoder), of
    /// every frame's own rectangle: 5.6 s for 288 M pixels of full frames, 9.0 s for 503 M
    /// reduced, 32 s for 2 G reduced.
    static let secondsPerCodedPixel = 20e-9
    /// Seconds a pixel of the screen costs, frames × screen, when libvips fits every frame:
    /// 32.7 s for 120 frames of 2048×2048.
    static let secondsPerFittedPixel = 60e-9
    /// What a frame costs whatever its size (its blocks, its palette, the writer's frame).
    static let secondsPerFrame = 50e-6

    /// The estimate, in seconds of one core.
    var seconds: Double

    /// The cost of `facts`, fitted to the decode size as `fitting` says.
    init(_ facts: GIFFacts, fitting: Fitting) {
        let screen = Double(facts.screen.width) * Double(facts.screen.height) * Double(facts.frames)
        seconds =
            facts.codedPixels * Self.secondsPerCodedPixel + (fitting == .libvips ? screen * Self.secondsPerFittedPixel : 0)
            + Double(facts.frames) * Self.secondsPerFrame
    }

    /// How the frames of a GIF of `screen` are fitted inside `decode`, as the decode stage
    /// fits them: PushMedia's decoder reduces the frames it reads unless they need colour
    /// management or a side shrinks more than its reduction takes.
    static func fitting(screen: PixelSize, decode: PixelSize, colourManaged: Bool, ownDecoder: Bool) -> Fitting {
        guard DecodePath.gifNeedsFitting(frame: screen, inside: decode, colourManaged: colourManaged) else { return .none }
        guard ownDecoder, !colourManaged else { return .libvips }
        // libvips' thumbnail gives the fitted size (one shrink for both sides, each side
        // rounded); the decode stage reduces only when CReduce takes that size, so the short side
        // of a long, thin screen may shrink past its limit where the long side does not. Either
        // rounding must fit, or libvips' fit is what the frames cost.
        let shrink = max(Double(screen.width) / Double(max(1, decode.width)), Double(screen.height) / Double(max(1, decode.height)))
        func side(_ length: Int, _ rounding: FloatingPointRoundingRule) -> Int32 {
            Int32(max(1, (Double(length) / shrink).rounded(rounding)))
        }
        let fits = [FloatingPointRoundingRule.down, .up].allSatisfy { rounding in
            pm_reduce_plan_fits(
                Int32(screen.width), Int32(screen.height), side(screen.width, rounding), side(screen.height, rounding)) != 0
        }
        return fits ? .reduced : .libvips
    }

    /// Refuses a GIF the item's time limit cannot finish (`too_many_frames`, with the estimate).
    static func check(_ image: ProbedImage, profile: Profile) throws {
        guard let facts = image.gif, image.isAnimation else { return }
        let plan = ImagePlan(source: image.size, profile: profile)
        var ownDecoder = false
        if case .gif = image.decoder { ownDecoder = true }
        let fitting = fitting(
            screen: facts.screen, decode: plan.decode, colourManaged: image.needsColourManagement, ownDecoder: ownDecoder)
        let cost = AnimationCost(facts, fitting: fitting)
        let limit = profile.limits.timeoutSeconds
        if cost.seconds > limit {
            throw ItemError(
                .tooManyFrames,
                "\(facts.frames) frames of \(facts.screen.width)×\(facts.screen.height) (\(Int(facts.codedPixels.rounded())) pixels "
                    + "coded\(fitting == .libvips ? ", every frame resized" : "")) would take about \(formatted(cost.seconds)) s, "
                    + "over the limit of \(String(format: "%g", limit)) s (limits.timeoutSeconds)")
        }
    }

    /// Seconds as the refusal gives them: whole above 10, else to a tenth, else two digits.
    static func formatted(_ seconds: Double) -> String {
        String(format: seconds >= 10 ? "%.0f" : seconds >= 1 ? "%.1f" : "%.2g", seconds)
    }
}
