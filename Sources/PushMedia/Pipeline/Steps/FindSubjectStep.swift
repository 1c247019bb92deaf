import PushMediaModel

/// Finds the image's subject once, on a small proxy of the decoded image, with the profile's
/// strategy: libvips' attention (saliency) or entropy crop, or simply the centre. For animations
/// it first picks a representative frame (not a blank or flat one) and looks there.
struct FindSubjectStep: PipelineStep {
    var name: String { "subject" }

    /// Long side of the proxy the subject is searched on.
    static let proxySide = 256
    /// Animation frames looked at when picking the representative one.
    static let sampledFrames = 48

    func run(_ context: ProcessingContext) throws {
        guard let working = context.working else { return }
        do {
            var image = working
            if context.isAnimation, let frameHeight = context.frameHeight {
                let frames = try working.frames(pageHeight: frameHeight)
                let index = try Self.representativeFrame(frames)
                context.representativeFrame = index
                image = frames[index]
            }
            context.subject = try SubjectFinder.find(in: image, strategy: context.profile.crop, proxySide: Self.proxySide)
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot analyse the image: \(error.message)")
        }
        context.probe?.subject = context.subject
    }

    /// The earliest frame with at least 80 % of the most detail (standard deviation) among evenly
    /// sampled frames: a frame that shows the content, early in the animation.
    static func representativeFrame(_ frames: [Vips.Image]) throws -> Int {
        let step = max(1, frames.count / sampledFrames)
        let indices = Array(stride(from: 0, to: frames.count, by: step))
        let scores = try indices.map { index -> Double in
            let frame = frames[index]
            let factor = min(1, 64 / Double(max(frame.width, frame.height)))
            let small = factor < 1 ? try frame.resize(horizontal: factor, vertical: factor) : frame
            // Colour bands only: a constant alpha band is not detail.
            return try (small.bands > 3 ? small.extractBands(0, count: 3) : small).deviation()
        }
        return RepresentativeFrame.choose(indices: indices, scores: scores)
    }
}

/// Pure choice of a representative frame from per-frame detail scores.
enum RepresentativeFrame {
    static func choose(indices: [Int], scores: [Double], share: Double = 0.8) -> Int {
        guard let best = scores.max(), best > 0 else { return indices.first ?? 0 }
        let position = scores.firstIndex { $0 >= best * share } ?? 0
        return indices[position]
    }
}

enum SubjectFinder {
    /// The subject as a unit point of `image`.
    static func find(in image: Vips.Image, strategy: CropStrategy, proxySide: Int) throws -> UnitPoint {
        if strategy == .centre { return UnitPoint(x: 0.5, y: 0.5) }
        let longSide = max(image.width, image.height)
        let proxy =
            longSide > proxySide
            ? try image.resize(horizontal: Double(proxySide) / Double(longSide), vertical: Double(proxySide) / Double(longSide))
            : image
        let width = proxy.width
        let height = proxy.height
        // A region half the proxy's size: its placement says where the interest is.
        let cropWidth = max(1, width / 2)
        let cropHeight = max(1, height / 2)
        switch strategy {
        case .attention:
            let result = try proxy.smartcrop(width: cropWidth, height: cropHeight, interesting: .attention)
            return UnitPoint(
                x: clampUnit((Double(result.attentionX) + 0.5) / Double(width)),
                y: clampUnit((Double(result.attentionY) + 0.5) / Double(height)))
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
