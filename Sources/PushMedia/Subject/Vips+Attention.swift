import PushMediaModel

extension Vips.Image {
    /// Where libvips' attention puts the centre of a `crop` of this image, in its pixels: the
    /// `attention_x`/`attention_y` that `vips_smartcrop` (`interesting: attention`) reports.
    /// The 32×32 map is made by libvips' resize, as `vips_smartcrop` makes it. ``Attention``
    /// scores the map in Swift.
    /// Nil when the image is not 8-bit sRGB (3 bands) or grey (1 band), or when two cells score
    /// too close to call (``Attention/tieMargin``): libvips' own smartcrop decides those (it
    /// premultiplies an alpha band and scores in float).
    func attentionCentre(crop: PixelSize) throws -> (x: Int, y: Int)? {
        guard isPlain8BitSRGBOrGrey else { return nil }
        let horizontal = Double(Attention.mapSide) / Double(width)
        let vertical = Double(Attention.mapSide) / Double(height)
        let map = try resizedAsLibvipsDefaults(horizontal: horizontal, vertical: vertical).copyMemory()
        let sigma = Attention.sigma(crop: crop, in: PixelSize(width: width, height: height))
        let peak = try map.withMemoryBytes { pixels in
            Attention.peak(pixels: pixels, width: map.width, height: map.height, bands: map.bands, sigma: sigma)
        }
        guard let cell = peak else { return nil }
        // As libvips converts the cell back: truncated towards zero.
        return (Int(Double(cell.x) / horizontal), Int(Double(cell.y) / vertical))
    }
}
