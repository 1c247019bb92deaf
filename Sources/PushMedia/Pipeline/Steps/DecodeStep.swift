import PushMediaModel

/// Decodes the image once, shrunk on load to the smallest size both variants can be cut from,
/// upright (EXIF orientation), colour-managed to 8-bit sRGB, with alpha kept only when real.
/// Animations decode every frame the same way. The decode stops when the item's time runs out.
struct DecodeStep: PipelineStep {
    var name: String { "decode" }

    func run(_ context: ProcessingContext) throws {
        guard let size = context.sourceSize, let format = context.format else { return }
        let plan = ImagePlan(source: size, profile: context.profile)
        context.plan = plan
        do {
            let colourManaged = context.probe?.hasICCProfile == true || context.probe?.colourSpace == "cmyk"
            let decoded = try Vips.Image.thumbnail(
                from: Vips.Source(path: context.input.path), width: plan.decode.width, height: plan.decode.height,
                allPages: context.isAnimation, colourManaged: colourManaged)
            decoded.stopEvaluation(at: context.deadline)
            // The source is read sequentially, once: decode into memory before anything else
            // looks at the pixels (the alpha check and both crops read them again).
            let inMemory = try decoded.copyMemory()
            let (normalized, keepsAlpha) = try inMemory.normalizedToSRGB8()
            context.working = normalized === inMemory ? inMemory : try normalized.copyMemory()
            context.keepsAlpha = keepsAlpha
            if context.isAnimation {
                let frames = context.probe?.frames ?? 1
                let frameHeight = decoded.pageHeight > 0 ? decoded.pageHeight : decoded.height / frames
                context.frameHeight = frameHeight
                let delays = decoded.intArray(field: "delay") ?? []
                context.timing = (
                    delays: (0..<frames).map { $0 < delays.count && delays[$0] > 0 ? delays[$0] : 100 },
                    loop: decoded.int(field: "loop") ?? 0
                )
            }
        } catch let error as Vips.Error {
            if ContinuousClock.now > context.deadline {
                throw ItemError(.timeout, "decoding stopped at the time limit of \(context.profile.limits.timeoutSeconds) s")
            }
            throw ItemError(.corruptInput, "cannot decode the \(format.rawValue) image: \(error.message)")
        }
    }
}
