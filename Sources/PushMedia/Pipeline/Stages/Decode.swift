import PushMediaModel

/// One decode of the image, upright (orientation applied), 8-bit sRGB, in memory, at the size
/// the plan asks for: both variants are cut from it, so nothing decodes twice.
struct Decoded {
    /// A still image, or an animation's frames (views into the one decode) with their timing.
    var pixels: Pixels
    /// True when the alpha is real (some pixel is not opaque): the stills become PNGs.
    var keepsAlpha: Bool
    /// Output sizes and the decode size, from the upright source size.
    var plan: ImagePlan

    /// Decodes the image once with the sniffed format, shrunk on load to the smallest size both
    /// variants can be cut from, upright (EXIF orientation), colour-managed to 8-bit sRGB, with
    /// alpha kept only when real. Animations decode every frame the same way. The decode stops
    /// when the item's time runs out.
    static func decode(_ image: ProbedImage, _ run: ItemRun) throws -> Decoded {
        let plan = ImagePlan(source: image.size, profile: run.profile)
        do {
            return try Vips.attributed(until: run.deadline) {
                let decoded = try Vips.Image.thumbnail(
                    from: Vips.Source(path: run.input.path), width: plan.decode.width, height: plan.decode.height,
                    allPages: image.isAnimation, colourManaged: image.needsColourManagement)
                decoded.stopEvaluation(at: run.deadline)
                // The source is read sequentially, once: decode into memory before anything else
                // looks at the pixels (the alpha check and both crops read them again).
                let inMemory = try decoded.copyMemory()
                let (normalized, keepsAlpha) = try inMemory.normalizedToSRGB8()
                let working = normalized === inMemory ? inMemory : try normalized.copyMemory()
                guard image.isAnimation else { return Decoded(pixels: .still(working), keepsAlpha: keepsAlpha, plan: plan) }
                let frameHeight = decoded.pageHeight > 0 ? decoded.pageHeight : decoded.height / image.frames
                let delays = decoded.intArray(field: "delay") ?? []
                let animation = Animation(
                    frames: try working.frames(pageHeight: frameHeight),
                    delays: (0..<image.frames).map { $0 < delays.count && delays[$0] > 0 ? delays[$0] : 100 },
                    loop: decoded.int(field: "loop") ?? 0)
                return Decoded(pixels: .animation(animation), keepsAlpha: keepsAlpha, plan: plan)
            }
        } catch let error as Vips.Error {
            if run.isPastDeadline {
                throw run.timedOut("decoding")
            }
            throw ItemError(.corruptInput, "cannot decode the \(image.source.format.rawValue) image: \(error.message)")
        }
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
