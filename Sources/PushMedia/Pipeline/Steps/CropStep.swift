import PushMediaModel

/// Cuts the square thumbnail and the expanded variant from the one decoded image, both centred
/// on the subject, and computes the clipping rect of the thumbnail inside the expanded image.
/// Every frame of an animation is cut the same way.
struct CropStep: PipelineStep {
    var name: String { "crop" }

    func run(_ context: ProcessingContext) throws {
        guard let working = context.working, let plan = context.plan else { return }
        let subject = context.subject ?? UnitPoint(x: 0.5, y: 0.5)
        let frameHeight = context.frameHeight ?? working.height
        let placement = plan.placement(
            working: PixelSize(width: working.width, height: frameHeight), subject: subject,
            aspect: context.profile.expanded.aspect)
        do {
            if context.isAnimation, let timing = context.timing {
                let frames = try working.frames(pageHeight: frameHeight)
                func animated(_ rect: PixelRect, _ size: PixelSize) throws -> VariantPixels {
                    .animation(Animation(frames: try frames.map { try Self.cut($0, rect, to: size) }, delays: timing.delays, loop: timing.loop))
                }
                let thumbnail: VariantPixels =
                    context.profile.animation.stillThumbnail
                    ? .still(try Self.cut(frames[context.representativeFrame ?? 0], placement.thumbnailRect, to: plan.thumbnail))
                    : try animated(placement.thumbnailRect, plan.thumbnail)
                context.variants = [
                    .init(role: .thumbnail, pixels: thumbnail),
                    .init(role: .expanded, pixels: try animated(placement.expandedRect, plan.expanded)),
                ]
            } else {
                context.variants = [
                    .init(role: .thumbnail, pixels: .still(try Self.cut(working, placement.thumbnailRect, to: plan.thumbnail))),
                    .init(role: .expanded, pixels: .still(try Self.cut(working, placement.expandedRect, to: plan.expanded))),
                ]
            }
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot resize the image: \(error.message)")
        }
        context.clipRect = placement.clipRect
    }

    static func cut(_ image: Vips.Image, _ rect: PixelRect, to size: PixelSize) throws -> Vips.Image {
        let area = try image.extractArea(left: rect.x, top: rect.y, width: rect.width, height: rect.height)
        if rect.size == size { return area }
        let resized = try area.resize(
            horizontal: Double(size.width) / Double(rect.width), vertical: Double(size.height) / Double(rect.height))
        // Rounding in resize can leave a pixel too many; cut to the exact size.
        if resized.width == size.width && resized.height == size.height { return resized }
        return try resized.extractArea(
            left: 0, top: 0, width: min(size.width, resized.width), height: min(size.height, resized.height))
    }
}
