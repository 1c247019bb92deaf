import PushMediaModel

/// The animation frame that stands for the whole (not a blank or flat first frame).
enum RepresentativeFrame {
    /// Animation frames looked at when picking the representative one.
    static let sampledFrames = 48

    /// Pure choice from per-frame detail scores: the earliest frame with at least `share` of
    /// the most detail.
    static func choose(indices: [Int], scores: [Double], share: Double = 0.8) -> Int {
        guard let best = scores.max(), best > 0 else { return indices.first ?? 0 }
        let position = scores.firstIndex { $0 >= best * share } ?? 0
        return indices[position]
    }

    /// The earliest frame with at least 80 % of the most detail (standard deviation) among
    /// evenly sampled frames: a frame that shows the content, early in the animation. The
    /// sampled frames are read as 64 to 127 px proxies (box averages) in one pass over the file.
    static func find(in animation: Animation) throws -> Int {
        let step = max(1, animation.frameCount / sampledFrames)
        let indices = Array(stride(from: 0, to: animation.frameCount, by: step))
        let scores = try animation.proxies(indices, longSide: 64).map { small -> Double in
            // Colour bands only: a constant alpha band is not detail.
            try (small.bands > 3 ? small.extractBands(0, count: 3) : small).deviation()
        }
        return choose(indices: indices, scores: scores)
    }
}

/// Where an image's subject is: libvips' attention (saliency; scored by ``Attention`` for 8-bit
/// sRGB and grey) or entropy crop on a small proxy, or simply the centre. (Faces, for
/// `crop: smart`, are found first by `Subject.find`; when there are none, `smart` is attention
/// here.)
enum SubjectFinder {
    /// The subject as a unit point of `image`.
    static func find(in image: Vips.Image, strategy: CropStrategy, proxySide: Int) throws -> UnitPoint {
        if strategy == .centre { return UnitPoint(x: 0.5, y: 0.5) }
        let longSide = max(image.width, image.height)
        let proxy =
            longSide > proxySide
            ? try image.reduced(
                to: ImagePlan.fitted(
                    PixelSize(width: image.width, height: image.height), inside: PixelSize(width: proxySide, height: proxySide)))
            : image
        let width = proxy.width
        let height = proxy.height
        // A region half the proxy's size: its placement says where the interest is.
        let cropWidth = max(1, width / 2)
        let cropHeight = max(1, height / 2)
        switch strategy {
        case .attention, .smart:
            let centre =
                try proxy.attentionCentre(crop: PixelSize(width: cropWidth, height: cropHeight))
                ?? {
                    let result = try proxy.smartcrop(width: cropWidth, height: cropHeight, interesting: .attention)
                    return (result.attentionX, result.attentionY)
                }()
            return UnitPoint(
                x: clampUnit((Double(centre.x) + 0.5) / Double(width)),
                y: clampUnit((Double(centre.y) + 0.5) / Double(height)))
        case .entropy:
            let result = try proxy.smartcrop(width: cropWidth, height: cropHeight, interesting: .entropy)
            let left = -(result.image.int(field: "xoffset") ?? -((width - cropWidth) / 2))
            let top = -(result.image.int(field: "yoffset") ?? -((height - cropHeight) / 2))
            return UnitPoint(
                x: clampUnit((Double(left) + Double(cropWidth) / 2) / Double(width)),
                y: clampUnit((Double(top) + Double(cropHeight) / 2) / Double(height)))
        case .centre:
            return UnitPoint(x: 0.5, y: 0.5)
        }
    }

    private static func clampUnit(_ value: Double) -> Double { min(1, max(0, value)) }
}
