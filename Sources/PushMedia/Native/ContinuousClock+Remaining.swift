extension ContinuousClock.Instant {
    /// The time from now until this instant in whole nanoseconds, negative once it has passed:
    /// what the C side's deadlines take (libjpeg's, FFmpeg's and libvips' clocks, in their units).
    var nanosecondsFromNow: Int64 {
        let remaining = ContinuousClock.now.duration(to: self).components
        return remaining.seconds * 1_000_000_000 + remaining.attoseconds / 1_000_000_000
    }
}
