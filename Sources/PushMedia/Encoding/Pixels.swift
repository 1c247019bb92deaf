import Foundation
import PushMediaModel

/// Decoded pixels: a still image, or an animation's frames with their timing. What a decode
/// produces, what both crops are cut as, and what the encoder turns into bytes.
enum Pixels {
    case still(Vips.Image)
    case animation(Animation)

    var width: Int {
        switch self {
        case .still(let image): image.width
        case .animation(let animation): animation.size.width
        }
    }

    var height: Int {
        switch self {
        case .still(let image): image.height
        case .animation(let animation): animation.size.height
        }
    }

    /// True for a still image (its pixels are in memory).
    var isStill: Bool {
        if case .still = self { return true }
        return false
    }

    /// Frames of an animation; nil for a still image.
    var frameCount: Int? {
        if case .animation(let animation) = self { return animation.frameCount }
        return nil
    }

    /// `rect` resized to `size` (``Framed/cut(_:_:to:now:)``): a still's at once, into memory;
    /// every frame of an animation lazily, when encoded.
    func cut(_ rect: PixelRect, to size: PixelSize) throws -> Pixels {
        switch self {
        case .still(let image): .still(try Framed.cut(image, rect, to: size, now: true))
        case .animation(let animation): .animation(animation.cut(rect, to: size))
        }
    }
}

extension Vips.Image {
    /// Resized by `factor` (below 1: a budget ladder's rung), to whole pixels.
    func scaled(by factor: Double) throws -> Vips.Image {
        guard factor < 1 else { return self }
        let newWidth = max(1, Int((Double(width) * factor).rounded()))
        let newHeight = max(1, Int((Double(height) * factor).rounded()))
        return try resize(horizontal: Double(newWidth) / Double(width), vertical: Double(newHeight) / Double(height))
    }
}
