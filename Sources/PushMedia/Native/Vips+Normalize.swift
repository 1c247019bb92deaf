import CVips
import CVipsShims

extension Vips.Image {
    /// The image as 8-bit sRGB, computing nothing yet (an alpha band, if any, kept as it is):
    /// converted from any other colour space (grey to three bands, Lab, CMYK left over) and band
    /// format (16-bit), or this very image when it is 8-bit sRGB already. The one conversion to
    /// what the rest of PushMedia reads (the GIF writer takes nothing else).
    func srgb8() throws -> Vips.Image {
        var image = self
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.colourspace(VIPS_INTERPRETATION_sRGB)
        }
        return image.bandFormat == VIPS_FORMAT_UCHAR ? image : try image.cast(VIPS_FORMAT_UCHAR)
    }

    /// Whether the last band, the alpha, is 255 everywhere (it reads every pixel).
    func alphaIsOpaque() throws -> Bool {
        try extractBands(bands - 1, count: 1).minimum() >= 255
    }
}
