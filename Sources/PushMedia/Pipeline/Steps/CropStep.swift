import PushMediaModel

/// Cuts the square thumbnail and the expanded variant from the one decoded image, both centred
/// on the subject, and computes the clipping rect of the thumbnail inside the expanded image.
struct CropStep: PipelineStep {
    var name: String { "crop" }

    func run(_ context: ProcessingContext) throws {
        guard let working = context.working, let plan = context.plan else { return }
        let subject = context.subject ?? UnitPoint(x: 0.5, y: 0.5)
        let placement = plan.placement(
            working: PixelSize(width: working.width, height: working.height), subject: subject,
            aspect: context.profile.expanded.aspect)
        do {
            context.variants = [
                .init(role: .thumbnail, image: try Self.cut(working, placement.thumbnailRect, to: plan.thumbnail)),
                .init(role: .expanded, image: try Self.cut(working, placement.expandedRect, to: plan.expanded)),
            ]
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
