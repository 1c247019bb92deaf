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
