/// What making an animated GIF's outputs costs, estimated from its scan before a pixel is
/// decoded: a pure model of PushMedia's own rates, measured on one core of a 2-core machine
/// (docs/configuration.md#animation-cost). Decoding is what grows with the source: every source
/// frame is decoded once per pass over the frames, in its own rectangle, whatever is kept; what
/// is written is bounded by the outputs' sizes and the frame-rate cap.
struct AnimationCost: Sendable, Equatable {
    /// Source pixels decoded per second (LZW into indices and drawn on the canvas).
    static let decodedPixelsPerSecond = 250e6
    /// What each frame costs whatever its size (its blocks, its palette, the writer's frame).
    static let secondsPerFrame = 50e-6
    /// Passes over the source frames an item makes.
    static let passes = 2.0
    /// The share of `limits.timeoutSeconds` an estimate may take: the rest is for a machine
    /// busier than measured.
    static let share = 0.5

    /// The estimate, in seconds of one core.
    var seconds: Double

    init(_ facts: GIFFacts) {
        seconds = Self.passes * (facts.codedPixels / Self.decodedPixelsPerSecond + Double(facts.frames) * Self.secondsPerFrame)
    }
}
