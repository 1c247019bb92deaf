import Foundation
import PushMediaModel

/// Audio with embedded cover art: the picture becomes the item's thumbnail and expanded image
/// (the image steps cut them). Art that does not decode is left out with a warning; the audio
/// is still shipped.
struct CoverArtStep: PipelineStep {
    var name: String { "cover art" }

    func run(_ context: ProcessingContext) throws {
        guard context.kind == .audio, context.probe?.hasCoverArt == true else { return }
        let art: Data?
        do {
            art = try FFmpeg.MediaFile(path: context.input.path, format: context.format, deadline: context.deadline).coverArt()
        } catch let error as FFmpeg.Error {
            throw ItemError(.corruptInput, "cannot read the cover art: \(error.message)")
        }
        guard let art else { return }
        do {
            // The header first: art is held to the same pixel limit as any image before decoding.
            let header = try Vips.Image.decode(art)
            try CheckLimitsStep.check(width: header.width, height: header.height, frames: 1, limits: context.profile.limits)
            let (normalized, keepsAlpha) = try header.copyMemory().normalizedToSRGB8()
            let size = PixelSize(width: normalized.width, height: normalized.height)
            context.sourceSize = size
            context.plan = ImagePlan(source: size, profile: context.profile)
            context.working = try normalized.copyMemory()
            context.keepsAlpha = keepsAlpha
        } catch let error as Vips.Error {
            context.warnings.append("cover art: cannot decode the embedded picture (\(error.message)); no thumbnail")
        } catch let error as ItemError {
            context.warnings.append("cover art: \(error.message); no thumbnail")
        }
    }
}
