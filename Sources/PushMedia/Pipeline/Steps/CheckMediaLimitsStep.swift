import PushMediaModel

/// Refuses movies and audio over the profile's limits from the probe alone: duration, and
/// pixels per video frame.
struct CheckMediaLimitsStep: PipelineStep {
    var name: String { "limits" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard let probe = context.probe else { return }
        try Self.check(probe, limits: context.profile.limits)
    }

    /// Pure: the limit a probed file breaks, as an error.
    static func check(_ probe: Probe, limits: Profile.Limits) throws {
        if let duration = probe.durationSeconds, duration > limits.maxDurationSeconds {
            throw ItemError(
                .tooLong,
                "\(String(format: "%.1f", duration)) s is longer than the limit of \(String(format: "%g", limits.maxDurationSeconds)) s")
        }
        if let width = probe.width, let height = probe.height {
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || pixels > limits.maxPixels {
                throw ItemError(
                    .tooManyPixels, "video frames of \(width)×\(height) are over the limit of \(limits.maxPixels) pixels")
            }
        }
    }
}
