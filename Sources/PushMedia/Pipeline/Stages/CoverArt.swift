import Foundation
import PushMediaModel

extension Decoded {
    /// Audio's embedded cover art, decoded: it becomes the item's thumbnail and expanded image.
    /// The picture is held to the same pixel limit as any image before its pixels are decoded.
    /// Nil, with a warning, when there is none that decodes: the audio is still shipped.
    static func coverArt(of media: ProbedMedia, _ run: ItemRun) -> Decoded? {
        guard let art = media.coverArt else { return nil }
        do {
            let (normalized, keepsAlpha) = try Vips.attributed {
                let header = try Vips.Image.decode(art)
                try run.profile.limits.checkImage(width: header.width, height: header.height, frames: 1)
                let (image, keepsAlpha) = try header.copyMemory().normalizedToSRGB8()
                return (try image.copyMemory(), keepsAlpha)
            }
            return Decoded(still: normalized, keepsAlpha: keepsAlpha, profile: run.profile)
        } catch let error as Vips.Error {
            run.warnings.append("cover art: cannot decode the embedded picture (\(error.message)); no thumbnail")
        } catch let error as ItemError {
            run.warnings.append("cover art: \(error.message); no thumbnail")
        } catch {
            run.warnings.append("cover art: \(error); no thumbnail")
        }
        return nil
    }
}
