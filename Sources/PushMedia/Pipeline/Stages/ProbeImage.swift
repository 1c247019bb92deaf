import PushMediaModel

/// An image as its header describes it, before any pixel is decoded.
struct ProbedImage {
    var source: Source
    /// The manifest's probe: size (upright), orientation, bands, depth, colour space, alpha,
    /// ICC profile, frames.
    var probe: Probe
    /// Size after EXIF orientation.
    var size: PixelSize
    /// Frames (1 for a still image).
    var frames: Int
    var isAnimation: Bool { frames > 1 }
    var kind: MediaKind { isAnimation ? .animatedImage : .image }
    /// An ICC profile or CMYK pixels: the decode goes through a colour transform.
    var needsColourManagement: Bool { probe.hasICCProfile == true || probe.colourSpace == "cmyk" }

    /// Reads the image header (no pixels) with the sniffed format.
    static func probe(_ source: Source, _ run: ItemRun) throws -> ProbedImage {
        // The warnings of the attempt that succeeds (libvips' attribution may run it twice).
        let (probe, warnings) = try Vips.attributed {
            var warnings: [String] = []
            return (try ImageProber.probe(path: run.input.path, format: source.format, warnings: &warnings), warnings)
        }
        run.warnings += warnings
        let image = ProbedImage(
            source: source, probe: probe, size: PixelSize(width: probe.width ?? 0, height: probe.height ?? 0),
            frames: probe.frames ?? 1)
        run.record(kind: image.kind, probe: probe)
        return image
    }
}
