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

    /// The same cut applied to the still image or to every frame; `size` is the size the cut
    /// makes (an animation's frames are cut lazily, when encoded).
    func map(to size: PixelSize, _ transform: @escaping (Vips.Image) throws -> Vips.Image) rethrows -> Pixels {
        switch self {
        case .still(let image): .still(try transform(image))
        case .animation(let animation): .animation(animation.map(to: size, transform))
        }
    }
}
