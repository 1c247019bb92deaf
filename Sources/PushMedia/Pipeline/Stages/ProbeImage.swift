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
    /// Which decoder reads the frames, decided here, once.
    var decoder: ImageDecoder = .libvips
    /// A GIF's scan (whichever decoder reads it): what the limits weigh its cost by.
    var gif: GIFFacts?
    var isAnimation: Bool { frames > 1 }
    var kind: MediaKind { isAnimation ? .animatedImage : .image }
    /// An ICC profile or CMYK pixels: the decode goes through a colour transform.
    var needsColourManagement: Bool { probe.hasICCProfile == true || probe.colourSpace == "cmyk" }

    /// Reads the image header (no pixels) with the sniffed format. A GIF that PushMedia's
    /// decoder takes is opened and scanned once, here, and every later stage reads its frames
    /// from that scan (``ImageDecoder/gif(_:)``); any other file, or a GIF that decoder leaves
    /// to libvips, has its header read by libvips' loader.
    ///
    /// A GIF's blocks are walked first whichever decoder reads it, and what is hostile is
    /// refused before libvips opens it (``Profile/Limits/check(gif:)``): a screen or a frame count
    /// over the limits (libvips' loader would read every frame header of a bomb of empty frames
    /// into memory, and take a 65535×65535 screen of one-pixel frames as a 1×1 image).
    static func probe(_ source: Source, _ run: ItemRun) throws -> ProbedImage {
        try Vips.start()
        var facts: GIFFacts?
        if source.format == .gif, let scan = try? GIFFile.scan(path: run.input.path, maxFrames: run.profile.limits.maxFrames) {
            switch scan {
            case .taken(let gif):
                facts = gif.facts
            case .declined(let declined), .tooManyFrames(let declined):
                facts = declined
            }
            if let facts {
                do {
                    try run.profile.limits.check(gif: facts)
                } catch {
                    run.record(kind: facts.frames > 1 ? .animatedImage : .image, probe: Probe(gif: facts))
                    throw error
                }
            }
            if case .taken(let gif) = scan {
                let probe = try ImageProber.probe(gif: gif)
                let image = ProbedImage(
                    source: source, probe: probe, size: gif.frameSize, frames: gif.frameCount, decoder: .gif(gif), gif: facts)
                run.record(kind: image.kind, probe: probe)
                return image
            }
        }
        // The warnings of the attempt that succeeds (libvips' attribution may run it twice).
        let (probe, warnings) = try Vips.attributed {
            var warnings: [String] = []
            return (try ImageProber.probe(path: run.input.path, format: source.format, warnings: &warnings), warnings)
        }
        run.warnings += warnings
        let image = ProbedImage(
            source: source, probe: probe, size: PixelSize(width: probe.width ?? 0, height: probe.height ?? 0),
            frames: probe.frames ?? 1, gif: facts)
        run.record(kind: image.kind, probe: probe)
        return image
    }
}

/// Which decoder reads an image's frames: decided once, when the image is probed.
enum ImageDecoder {
    /// PushMedia's own GIF decoder, over the file opened and scanned once (``GIFFile``).
    case gif(GIFFile)
    /// libvips' loader for the sniffed format, opening the file for each pass.
    case libvips
}

extension Probe {
    /// What a GIF's scan says of it, for an item refused before its header is read.
    init(gif facts: GIFFacts) {
        self.init(
            format: MediaFormat.gif.rawValue, mimeType: MediaFormat.gif.mimeType, width: facts.screen.width,
            height: facts.screen.height, frames: facts.frames)
    }
}
