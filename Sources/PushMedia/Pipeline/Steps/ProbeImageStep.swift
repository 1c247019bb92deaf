import PushMediaModel

/// Reads the image header (no pixels): size, EXIF orientation, bands, depth, colour space,
/// alpha, ICC profile, frames.
struct ProbeImageStep: PipelineStep {
    var name: String { "probe" }

    func run(_ context: ProcessingContext) throws {
        guard let format = context.format else { return }
        let probe = try ImageProber.probe(path: context.input.path, format: format, warnings: &context.warnings)
        context.probe = probe
        context.sourceSize = PixelSize(width: probe.width ?? 0, height: probe.height ?? 0)
        if let frames = probe.frames, frames > 1 { context.kind = .animatedImage }
    }
}
