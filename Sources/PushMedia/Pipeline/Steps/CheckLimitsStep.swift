import PushMediaModel

/// Refuses inputs over the profile's safety limits from the header alone, before any pixel is
/// decoded: pixels of a still image or of one frame, frames, and total animation pixels.
struct CheckLimitsStep: PipelineStep {
    var name: String { "limits" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard let probe = context.probe, let width = probe.width, let height = probe.height else { return }
        try Self.check(width: width, height: height, frames: probe.frames ?? 1, limits: context.profile.limits)
    }

    /// Pure: the limit an image of this size breaks, as an error.
    static func check(width: Int, height: Int, frames: Int, limits: Profile.Limits) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limits.maxPixels {
            throw ItemError(
                .tooManyPixels,
                "\(width)×\(height) is \(overflow ? "too many" : "\(pixels)") pixels\(frames > 1 ? " per frame" : ""), over the limit of \(limits.maxPixels)")
        }
        if frames > limits.maxFrames {
            throw ItemError(.tooManyFrames, "the animation has \(frames) frames, over the limit of \(limits.maxFrames)")
        }
        let (total, totalOverflow) = pixels.multipliedReportingOverflow(by: frames)
        if totalOverflow || total > limits.maxAnimationPixels {
            throw ItemError(
                .tooManyFrames,
                "\(frames) frames of \(width)×\(height) are \(total) pixels in all, over the limit of \(limits.maxAnimationPixels)")
        }
    }
}
