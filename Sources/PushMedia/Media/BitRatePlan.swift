import PushMediaModel

/// Pure: the bit rates that make a transcode fit its byte budget, and the next, lower ones when
/// an attempt came out too big.
struct BitRatePlan: Equatable {
    /// Bits per second for the video (0 for audio alone).
    var video: Int
    var audio: Int
    /// Seconds encoded (the clip's duration, or the trim length).
    var duration: Double
    /// Set when the profile allowed trimming a clip too long for its budget.
    var trimmedTo: Double?

    /// Share of the budget for the media data; the rest is container overhead.
    static let payloadShare = 0.95
    /// Bits per pixel per frame above which H.264 gains little: no need to fill the budget.
    static let bitsPerPixelCeiling = 0.12
    /// AAC rate a movie's sound may drop to before the video gives up more.
    static let lowestMovieAudio = 64_000
    /// Transcodes tried before giving up.
    static let maxAttempts = 4

    /// A movie's first attempt. `pixelsPerSecond` is output width × height × frame rate.
    static func movie(budget: Int, duration: Double, hasAudio: Bool, pixelsPerSecond: Double, profile: Profile) throws
        -> BitRatePlan
    {
        let video = profile.video
        func plan(for seconds: Double) -> BitRatePlan? {
            let total = Double(budget) * 8 * payloadShare / max(seconds, 0.1)
            var audio = hasAudio ? video.audioBitRate : 0
            var rate = total - Double(audio)
            if rate < Double(video.minBitRate), hasAudio, audio > lowestMovieAudio {
                audio = lowestMovieAudio
                rate = total - Double(audio)
            }
            guard rate >= Double(video.minBitRate) else { return nil }
            let ceiling = max(Double(video.minBitRate), pixelsPerSecond * bitsPerPixelCeiling)
            return BitRatePlan(video: Int(min(rate, ceiling)), audio: audio, duration: seconds)
        }
        if let whole = plan(for: duration) { return whole }
        if let trim = video.trimToSeconds, trim < duration, var trimmed = plan(for: trim) {
            trimmed.trimmedTo = trim
            return trimmed
        }
        let needed = Double(budget) * 8 * payloadShare / Double(video.minBitRate + (hasAudio ? lowestMovieAudio : 0))
        throw ItemError(
            .overBudget,
            "a \(formatted(duration)) s movie cannot fit \(budget) bytes at the lowest video bit rate of \(video.minBitRate) bit/s "
                + "(at most \(formatted(needed)) s would fit)"
                + (video.trimToSeconds == nil ? "; set video.trimToSeconds in the profile to cut it instead" : ""))
    }

    /// Audio alone (AAC in M4A): the profile's rate, or lower to fit.
    static func audio(budget: Int, duration: Double, profile: Profile) throws -> BitRatePlan {
        let fitting = Double(budget) * 8 * payloadShare / max(duration, 0.1)
        let rate = min(Double(profile.audio.bitRate), fitting)
        guard rate >= Double(profile.audio.minBitRate) else {
            throw ItemError(
                .overBudget,
                "\(formatted(duration)) s of audio cannot fit \(budget) bytes at the lowest AAC bit rate of \(profile.audio.minBitRate) bit/s")
        }
        return BitRatePlan(video: 0, audio: Int(rate), duration: duration)
    }

    /// After an attempt of `bytes` over `budget`: rates scaled down by the overshoot (with a
    /// margin), or nil when that goes below the floor.
    func lowered(bytes: Int, budget: Int, minVideo: Int, minAudio: Int) -> BitRatePlan? {
        let factor = Double(budget) / Double(bytes) * 0.92
        var next = self
        if video > 0 {
            next.video = Int(Double(video) * factor)
            guard next.video >= minVideo else { return nil }
        } else {
            next.audio = Int(Double(audio) * factor)
            guard next.audio >= minAudio else { return nil }
        }
        return next
    }

    private static func formatted(_ seconds: Double) -> String {
        String(Int(seconds.rounded()))
    }
}
