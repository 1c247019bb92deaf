import PushMediaModel

/// The profile's safety limits, checked from headers alone, before any pixel is decoded. Pure.
extension Profile.Limits {
    /// Refuses an image over the limits: pixels of a still image or of one frame, frames, and
    /// total animation pixels (a GIF's cost was weighed when it was probed).
    func check(_ image: ProbedImage) throws {
        try checkImage(width: image.size.width, height: image.size.height, frames: image.frames)
    }

    /// The limit an image of this size breaks, as an error.
    func checkImage(width: Int, height: Int, frames: Int) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw ItemError(
                .tooManyPixels,
                "\(width)×\(height) is \(overflow ? "too many" : "\(pixels)") pixels\(frames > 1 ? " per frame" : ""), over the limit of \(maxPixels)"
            )
        }
        if frames > maxFrames {
            throw ItemError(.tooManyFrames, "the animation has \(frames) frames, over the limit of \(maxFrames)")
        }
        let (total, totalOverflow) = pixels.multipliedReportingOverflow(by: frames)
        if totalOverflow || total > maxAnimationPixels {
            throw ItemError(
                .tooManyFrames,
                "\(frames) frames of \(width)×\(height) are \(total) pixels in all, over the limit of \(maxAnimationPixels)")
        }
    }

    /// Refuses a GIF from its scan, before libvips or PushMedia's decoder reads a pixel: a screen
    /// over ``maxPixels``, more frames than ``maxFrames`` (counted, however many), frames ×
    /// screen over ``maxAnimationPixels`` (the hard cap). What it costs is weighed once the
    /// decode size is known (``AnimationCost``).
    func check(gif facts: GIFFacts) throws {
        let (screen, overflow) = facts.screen.width.multipliedReportingOverflow(by: facts.screen.height)
        if overflow || screen > maxPixels {
            throw ItemError(
                .tooManyPixels,
                "the GIF's screen of \(facts.screen.width)×\(facts.screen.height) is \(screen) pixels, over the limit of \(maxPixels)")
        }
        try checkImage(width: facts.screen.width, height: facts.screen.height, frames: facts.frames)
    }

    /// Refuses a movie or audio file over the limits: duration, and pixels per video frame.
    func check(_ media: ProbedMedia) throws {
        try checkMedia(media.probe)
    }

    /// The limit a probed movie or audio file breaks, as an error.
    func checkMedia(_ probe: Probe) throws {
        if let duration = probe.durationSeconds, duration > maxDurationSeconds {
            throw ItemError(
                .tooLong,
                "\(String(format: "%.1f", duration)) s is longer than the limit of \(String(format: "%g", maxDurationSeconds)) s")
        }
        if let width = probe.width, let height = probe.height {
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || pixels > maxPixels {
                throw ItemError(
                    .tooManyPixels, "video frames of \(width)×\(height) are over the limit of \(maxPixels) pixels")
            }
        }
    }
}
