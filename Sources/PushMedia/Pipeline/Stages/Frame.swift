import PushMediaModel

/// The two variants cut from the one decode, and where the thumbnail sits in the expanded one.
struct Framed {
    /// The square thumbnail (a still of the representative frame when the profile asks for one).
    var thumbnail: Pixels
    /// The expanded variant, at the profile's aspect.
    var expanded: Pixels
    /// The thumbnail's square inside the expanded variant (`thumbnailClippingRect`).
    var clipRect: UnitRect
    /// The animation frame that stands for the whole (the GIF's `thumbnailTime`).
    var representativeFrame: Int?
    /// True when the alpha is real: stills become PNGs (for an animation's still thumbnail, the
    /// alpha of its frame).
    var keepsAlpha: Bool
    /// Where both variants were cut from the decoded image.
    var placement: ImagePlan.Placement
    /// The size of the decoded image the placement is in.
    var working: PixelSize

    /// Where `role`'s variant was cut, as a unit rect of the decoded (so of the oriented source) image.
    func sourceRect(_ role: Attachment.Role) -> UnitRect? {
        let rect: PixelRect
        switch role {
        case .thumbnail: rect = placement.thumbnailRect
        case .expanded: rect = placement.expandedRect
        case .media: return nil
        }
        return UnitRect(rect, in: working)
    }

    /// Cuts the square thumbnail and the expanded variant from the decoded image, both centred
    /// on the subject, and computes the clipping rect of the thumbnail inside the expanded
    /// image. Every frame of an animation is cut the same way. A still's cuts are reduced into
    /// memory now (two small images); an animation's are lazy: its frames' pixels are computed
    /// when encoded, on each encoding attempt, from the file.
    static func cut(_ decoded: Decoded, around subject: Subject, _ run: ItemRun) throws -> Framed {
        let plan = decoded.plan
        let working = PixelSize(width: decoded.pixels.width, height: decoded.pixels.height)
        let placement = plan.placement(
            working: working, subject: subject.point,
            keeping: subject.keep, avoiding: subject.avoid, aspect: run.profile.expanded.aspect)
        do {
            return try Vips.attributed(until: run.deadline) {
                var thumbnailSource = decoded.pixels
                var keepsAlpha = decoded.keepsAlpha
                if run.profile.animation.stillThumbnail, case .animation(let animation) = decoded.pixels {
                    // The one frame the still is cut from (the subject search's); its own alpha decides PNG or JPEG.
                    let frame = try subject.representativeImage ?? animation.frame(subject.representativeFrame ?? 0)
                    let (still, realAlpha) = try frame.normalizedToSRGB8()
                    thumbnailSource = .still(still)
                    keepsAlpha = realAlpha
                }
                return Framed(
                    thumbnail: try thumbnailSource.cut(placement.thumbnailRect, to: plan.thumbnail),
                    expanded: try decoded.pixels.cut(placement.expandedRect, to: plan.expanded),
                    clipRect: placement.clipRect, representativeFrame: subject.representativeFrame, keepsAlpha: keepsAlpha,
                    placement: placement, working: working)
            }
        } catch let error as Vips.Error {
            if run.isPastDeadline { throw run.timedOut("cutting the variants") }
            throw ItemError(.corruptInput, "cannot resize the image: \(error.message)")
        }
    }

    /// `rect` of `image`, resized to exactly `size`. `now` (a still): reduced into memory at once
    /// with ``Vips/Image/reduced(_:to:until:vectorized:)`` (the two-pass Lanczos3, read from the
    /// decoded pixels in place) when both sides shrink;
    /// otherwise libvips' lazy resize (an animation frame's pixels are computed per strip as
    /// they are encoded, by each libvips thread that reads them).
    static func cut(_ image: Vips.Image, _ rect: PixelRect, to size: PixelSize, now: Bool = false) throws -> Vips.Image {
        if now && rect.size != size && size.width <= rect.width && size.height <= rect.height {
            return try image.reduced(rect, to: size)
        }
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
