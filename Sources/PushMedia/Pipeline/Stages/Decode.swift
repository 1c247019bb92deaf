import PushMediaModel

/// One decode of the image, upright (orientation applied), 8-bit sRGB, at the size the plan asks
/// for: both variants are cut from it. A still is decoded once, into memory; an animation's frames
/// are decoded from the file by each pass that reads them, so memory never holds all of them.
struct Decoded {
    /// A still image (in memory), or an animation (frames decoded lazily from the file) with
    /// their timing.
    var pixels: Pixels
    /// True when the alpha is real (some pixel is not opaque): the stills become PNGs. For an
    /// animation, true when its frames have an alpha band (checked on the still thumbnail).
    var keepsAlpha: Bool
    /// Output sizes and the decode size, from the upright source size.
    var plan: ImagePlan

    /// Decodes the image once with the sniffed format, shrunk on load to the smallest size both
    /// variants can be cut from, upright (EXIF orientation), colour-managed to 8-bit sRGB, with
    /// alpha kept only when real. Animations are decoded the same way, frame by frame, by the
    /// stages that read them. The decode stops when the item's time runs out.
    static func decode(_ image: ProbedImage, _ run: ItemRun) throws -> Decoded {
        let plan = ImagePlan(source: image.size, profile: run.profile)
        do {
            if image.isAnimation { return try Vips.attributed(until: run.deadline) { try animation(image, plan, run) } }
            return try Vips.attributed(until: run.deadline) {
                // The source is read sequentially, once: decode into memory before anything else
                // looks at the pixels (the alpha check and both crops read them again).
                let inMemory: Vips.Image
                if case .gif(let file) = image.decoder {
                    // A GIF of one frame, from the scan the probe made: the file is not opened again.
                    inMemory = try Vips.Image.still(
                        decoded: try file.frames(), width: plan.decode.width, height: plan.decode.height,
                        colourManaged: image.needsColourManagement, until: run.deadline)
                } else {
                    inMemory = try Vips.Image.still(
                        from: Vips.Source(path: run.input.path), width: plan.decode.width, height: plan.decode.height,
                        colourManaged: image.needsColourManagement, until: run.deadline)
                }
                let (normalized, keepsAlpha) = try inMemory.normalizedToSRGB8()
                let working = normalized === inMemory ? inMemory : try normalized.copyMemory()
                return Decoded(pixels: .still(working), keepsAlpha: keepsAlpha, plan: plan)
            }
        } catch let error as Vips.Error {
            if run.isPastDeadline {
                throw run.timedOut("decoding")
            }
            throw ItemError(.corruptInput, "cannot decode the \(image.source.format.rawValue) image: \(error.message)")
        }
    }

    /// An animation is not decoded here: this reads its header and hands on an ``Animation``
    /// whose frames are decoded lazily and a few at a time by each later pass (representative
    /// frame, subject, each encoding attempt), every pass with the item's deadline. Where the
    /// frames come from is decided here, once: a GIF that PushMedia's decoder takes is opened and
    /// scanned once (``GIFFile``) and every pass draws from that scan, each frame costing its own
    /// rectangle instead of libvips' whole canvas; anything else is libvips' loader.
    /// `keepsAlpha` is whether frames have an alpha band; whether it is real is decided on the
    /// one frame a still thumbnail is cut from.
    private static func animation(_ image: ProbedImage, _ plan: ImagePlan, _ run: ItemRun) throws -> Decoded {
        let deadline = run.deadline
        let colourManaged = image.needsColourManagement
        if case .gif(let file) = image.decoder {
            let fit =
                DecodePath.gifNeedsFitting(frame: file.frameSize, inside: plan.decode, colourManaged: colourManaged)
                ? Animation.GIFFit(inside: plan.decode, colourManaged: colourManaged) : nil
            var animation = Animation(
                frames: .gif(file, fit: fit), frameSize: file.frameSize,
                delays: file.delays.map { $0 > 0 ? $0 : 100 }, loop: file.loop, deadline: deadline)
            if fit != nil {
                // The fitted size, from the pipeline's header (nothing is decoded).
                let header = try animation.openFrames()
                animation.sourceSize = PixelSize(width: header.width, height: header.pageHeight)
                animation.size = animation.sourceSize
                // Frames PushMedia's decoder reduces, or a large source, are fitted once, not by
                // every pass over them: into a GIF that later passes read straight from the
                // decoder (Encoding/Animation+FitOnce.swift, removed from the folder as soon as
                // opened).
                if animation.fittedCut != nil || animation.fitsOnce(source: file.frameSize) {
                    animation = try animation.fittedOnce(in: run.options.outputDirectory)
                }
            }
            return Decoded(pixels: .animation(animation), keepsAlpha: file.bands == 4, plan: plan)
        }
        let path = run.input.path
        let open = { () throws -> Vips.Image in
            let decoded = try Vips.Image.thumbnail(
                from: Vips.Source(path: path), width: plan.decode.width, height: plan.decode.height, allPages: true,
                colourManaged: colourManaged)
            decoded.stopEvaluation(at: deadline)
            return try decoded.srgb8()
        }
        let header = try open()
        let frameHeight = header.pageHeight > 0 ? header.pageHeight : header.height / image.frames
        let frames = max(1, header.height / max(1, frameHeight))
        let delays = header.intArray(field: "delay") ?? []
        let animation = Animation(
            frames: .decode(open), frameSize: PixelSize(width: header.width, height: frameHeight),
            delays: (0..<frames).map { $0 < delays.count && delays[$0] > 0 ? delays[$0] : 100 },
            loop: header.int(field: "loop") ?? 0, deadline: deadline)
        return Decoded(pixels: .animation(animation), keepsAlpha: header.hasAlpha, plan: plan)
    }

    /// A picture that is already upright and 8-bit sRGB (a poster frame or cover art), with the
    /// plan for its size.
    init(still image: Vips.Image, keepsAlpha: Bool, profile: Profile) {
        self.init(
            pixels: .still(image), keepsAlpha: keepsAlpha,
            plan: ImagePlan(source: PixelSize(width: image.width, height: image.height), profile: profile))
    }

    init(pixels: Pixels, keepsAlpha: Bool, plan: ImagePlan) {
        self.pixels = pixels
        self.keepsAlpha = keepsAlpha
        self.plan = plan
    }
}

extension Vips.Image {
    /// The image as 8-bit sRGB (``srgb8()``), with its alpha band only when the alpha is real
    /// (some pixel is not opaque): opaque alpha is dropped so the image can be a JPEG. Reads
    /// every pixel of an image with alpha.
    func normalizedToSRGB8() throws -> (image: Vips.Image, keepsAlpha: Bool) {
        let image = try srgb8()
        guard image.hasAlpha else {
            return (image.bands > 3 ? try image.extractBands(0, count: 3) : image, false)
        }
        let opaque = try image.alphaIsOpaque()
        return (try image.extractBands(0, count: opaque ? 3 : 4), !opaque)
    }
}
