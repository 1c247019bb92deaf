import CPushMediaShims
import CVips

extension Vips.Image {
    /// The image as 8-bit sRGB, with its alpha band only when the alpha is real (some pixel is
    /// not opaque). Handles 16-bit RGB, greyscale (to three bands), Lab and CMYK left over.
    func normalizedToSRGB8() throws -> (image: Vips.Image, keepsAlpha: Bool) {
        var image = self
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
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
