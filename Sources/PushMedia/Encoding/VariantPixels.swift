import PushMediaModel

/// The pixels of one variant before encoding: a still image or an animation.
enum VariantPixels {
    case still(Vips.Image)
    case animation(Animation)

    var width: Int {
        switch self {
        case .still(let image): image.width
        case .animation(let animation): animation.frames.first?.width ?? 0
        }
    }

    var height: Int {
        switch self {
        case .still(let image): image.height
        case .animation(let animation): animation.frames.first?.height ?? 0
        }
    }
}

/// Frames of equal size with their delays (milliseconds) and loop count (0 = forever).
struct Animation {
    var frames: [Vips.Image]
    var delays: [Int]
    var loop: Int

    var durationMilliseconds: Int { delays.reduce(0, +) }

    /// Every `step`-th frame, each kept frame taking the delays of the frames dropped after it,
    /// so the total duration stays the same.
    func keepingEvery(_ step: Int) -> Animation {
        guard step > 1 else { return self }
        let kept = stride(from: 0, to: frames.count, by: step)
        return Animation(
            frames: kept.map { frames[$0] },
            delays: kept.map { start in delays[start..<min(start + step, delays.count)].reduce(0, +) },
            loop: loop)
    }
}
