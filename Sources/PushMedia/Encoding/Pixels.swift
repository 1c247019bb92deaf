import PushMediaModel

/// Decoded pixels: a still image, or an animation's frames with their timing. What a decode
/// produces, what both crops are cut as, and what the encoder turns into bytes.
enum Pixels {
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

    /// Frames of an animation; nil for a still image.
    var frameCount: Int? {
        if case .animation(let animation) = self { return animation.frames.count }
        return nil
    }

    /// The same cut applied to the still image or to every frame.
    func map(_ transform: (Vips.Image) throws -> Vips.Image) rethrows -> Pixels {
        switch self {
        case .still(let image): .still(try transform(image))
        case .animation(let animation): .animation(try animation.map(transform))
        }
    }
}

/// Frames of equal size with their delays (milliseconds) and loop count (0 = forever).
///
/// The frames are views into one decode (no copies); a later change can make this a source that
/// yields frames a few at a time without changing the stages that take it.
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

    /// The same transform applied to every frame, timing unchanged.
    func map(_ transform: (Vips.Image) throws -> Vips.Image) rethrows -> Animation {
        Animation(frames: try frames.map(transform), delays: delays, loop: loop)
    }
}
