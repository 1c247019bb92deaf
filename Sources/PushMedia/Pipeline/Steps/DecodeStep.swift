import CVips
import PushMediaModel

/// Decodes the image once, shrunk on load to the smallest size both variants can be cut from,
/// upright (EXIF orientation), colour-managed to 8-bit sRGB, with alpha kept only when real.
struct DecodeStep: PipelineStep {
    var name: String { "decode" }

    func run(_ context: ProcessingContext) throws {
        guard let size = context.sourceSize, let format = context.format else { return }
        let plan = ImagePlan(source: size, profile: context.profile)
        context.plan = plan
        do {
            let decoded = try Vips.Image.thumbnail(
                from: Vips.Source(path: context.input.path), width: plan.decode.width, height: plan.decode.height)
            // The source is read sequentially, once: decode into memory before anything else
            // looks at the pixels (the alpha check and both crops read them again).
            let (normalized, keepsAlpha) = try ImageNormalizer.sRGB8(decoded.copyMemory())
            context.working = normalized === decoded ? normalized : try normalized.copyMemory()
            context.keepsAlpha = keepsAlpha
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot decode the \(format.rawValue) image: \(error.message)")
        }
    }
}

/// Brings any decoded image to 8-bit sRGB (or sRGB + alpha when the alpha is real).
enum ImageNormalizer {
    static func sRGB8(_ image: Vips.Image) throws -> (Vips.Image, keepsAlpha: Bool) {
        var image = image
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
            // Handles 16-bit RGB, greyscale (to three bands), Lab and any CMYK left over.
            image = try image.colourspace(VIPS_INTERPRETATION_sRGB)
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.cast(VIPS_FORMAT_UCHAR)
        }
        guard image.hasAlpha else {
            return (image.bands > 3 ? try image.extractBands(0, count: 3) : image, false)
        }
        let alpha = try image.extractBands(image.bands - 1, count: 1)
        let opaque = try alpha.minimum() >= 255
        // Opaque alpha is dropped so the image can be a JPEG.
        return (try image.extractBands(0, count: opaque ? 3 : 4), !opaque)
    }
}
