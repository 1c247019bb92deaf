// The one check of a profile's values. Total: it never traps, whatever the fields hold (Int.min,
// Int.max, NaN, ±infinity, 1e308, -0.0). Every bound is compared with `<=`/`>=` (no range is
// built), a bound that depends on another field is used only once that field is valid, and no
// derived value (bytes per notification or per image) is computed from a value not yet checked.

extension Profile {
    /// Problems with the values (out of range, not finite), in words; empty when the profile is
    /// usable. A profile with no problems has every value in its documented range, so the values
    /// derived from it (``Delivery/notificationBytes``, ``Delivery/imageBytes``, time limits in
    /// milliseconds) are computed without overflow and are positive.
    public var problems: [String] {
        var out: [String] = []
        /// True when `lower ≤ value ≤ upper`; else records the problem.
        @discardableResult
        func check(_ value: Int, _ lower: Int, _ upper: Int, _ key: String, upperName: String? = nil) -> Bool {
            if value >= lower && value <= upper { return true }
            out.append("\(key) must be in \(lower)…\(upperName ?? "\(upper)"), got \(value)")
            return false
        }
        /// True when `value` is a finite number with `0 < value ≤ upper`; else records the problem.
        @discardableResult
        func check(_ value: Double, upTo upper: Double, _ key: String, upperName: String? = nil) -> Bool {
            if value.isFinite && value > 0 && value <= upper { return true }
            out.append("\(key) must be a number in 0…\(upperName ?? Self.text(upper)) (exclusive of 0), got \(Self.text(value))")
            return false
        }

        check(thumbnail.size, 16, 4096, "thumbnail.size")
        check(expanded.maxWidth, 16, 8192, "expanded.maxWidth")
        check(expanded.aspect.width, 1, 100, "expanded.aspect width")
        check(expanded.aspect.height, 1, 100, "expanded.aspect height")
        // The lowest quality is checked against the quality only when that is valid itself.
        if check(jpeg.quality, 1, 100, "jpeg.quality") {
            check(jpeg.minQuality, 1, jpeg.quality, "jpeg.minQuality", upperName: "jpeg.quality (\(jpeg.quality))")
        } else {
            check(jpeg.minQuality, 1, 100, "jpeg.minQuality")
        }
        check(png.compression, 0, 9, "png.compression")
        check(animation.minColours, 2, 256, "animation.minColours")
        check(animation.maxFrameStep, 1, 8, "animation.maxFrameStep")
        check(animation.maxFramesPerSecond, 0, 50, "animation.maxFramesPerSecond")
        let image = AttachmentType.maxBytes(for: .image)
        check(budgets.thumbnail, 1_000, image, "budgets.thumbnail")
        check(budgets.expanded, 1_000, image, "budgets.expanded")
        check(budgets.animated, 1_000, image, "budgets.animated")
        check(budgets.movie, 10_000, AttachmentType.maxBytes(for: .movie), "budgets.movie")
        check(budgets.audio, 10_000, AttachmentType.maxBytes(for: .audio), "budgets.audio")
        check(limits.maxInputBytes, 1, 1 << 40, "limits.maxInputBytes")
        check(limits.maxPixels, 1, 1 << 40, "limits.maxPixels")
        check(limits.maxFrames, 1, 100_000, "limits.maxFrames")
        check(limits.maxAnimationPixels, 1, 1 << 42, "limits.maxAnimationPixels")
        check(limits.timeoutSeconds, upTo: 3600, "limits.timeoutSeconds")
        check(limits.mediaTimeoutSeconds, upTo: 3600, "limits.mediaTimeoutSeconds")
        check(limits.maxDurationSeconds, upTo: 86400, "limits.maxDurationSeconds")
        if !(limits.faceNetMilliseconds.isFinite && limits.faceNetMilliseconds >= 0 && limits.faceNetMilliseconds <= 60_000) {
            out.append("limits.faceNetMilliseconds must be a number in 0…60000, got \(Self.text(limits.faceNetMilliseconds))")
        }
        check(video.maxLongSide, 16, 7680, "video.maxLongSide")
        check(video.maxFrameRate, upTo: 240, "video.maxFrameRate")
        check(video.posterWindowSeconds, upTo: 600, "video.posterWindowSeconds")
        if let trim = video.trimToSeconds { check(trim, upTo: 86400, "video.trimToSeconds") }
        check(video.audioBitRate, 16_000, 512_000, "video.audioBitRate")
        check(video.minBitRate, 50_000, 50_000_000, "video.minBitRate")
        if !Video.presets.contains(video.preset) {
            out.append("video.preset must be one of \(Video.presets.joined(separator: ", ")), got \"\(Self.clipped(video.preset))\"")
        }
        if check(audio.bitRate, 16_000, 512_000, "audio.bitRate") {
            check(audio.minBitRate, 16_000, audio.bitRate, "audio.minBitRate", upperName: "audio.bitRate (\(audio.bitRate))")
        } else {
            check(audio.minBitRate, 16_000, 512_000, "audio.minBitRate")
        }
        if check(android.maxWidth, 16, 4096, "android.maxWidth") {
            check(android.minWidth, 1, android.maxWidth, "android.minWidth", upperName: "android.maxWidth (\(android.maxWidth))")
        } else {
            check(android.minWidth, 1, 4096, "android.minWidth")
        }
        check(
            android.budget, 1_000, Android.hardLimit, "android.budget",
            upperName: "\(Android.hardLimit) (Firebase's 1 MiB limit for Android images)")
        return out + delivery.problems
    }

    /// A bound or a value in a message: `3600`, `0.5`, `nan`, `inf`, `1e+308`.
    static func text(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return value.sign == .minus && value == 0 ? "-0" : "\(Int(value))" }
        return "\(value)"
    }

    /// At most 64 characters of a value quoted in a message (a key, a preset, a number).
    public static func clipped(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(64)) + "…"
    }
}

extension Profile.Delivery {
    /// The fewest bytes a notification must be allowed: a still thumbnail and an expanded image of
    /// a few KB.
    public static let minNotificationBytes = 20_000
    /// The fewest bytes one image must be allowed (the smallest per-type budget).
    public static let minImageBytes = 1_000

    /// Out-of-range values, in words. The bytes per notification and per image are computed only
    /// from values found valid first.
    var problems: [String] {
        var out: [String] = []
        let linkValid = linkBitsPerSecond >= 8_000 && linkBitsPerSecond <= 10_000_000_000
        if !linkValid {
            out.append("delivery.linkBitsPerSecond must be in 8000…10000000000, got \(linkBitsPerSecond)")
        }
        let secondsValid = seconds.isFinite && seconds > 0 && seconds <= 600
        if !secondsValid {
            out.append("delivery.seconds must be a number in 0…600 (exclusive of 0), got \(Profile.text(seconds))")
        }
        // The image's time is within the notification's: checked against delivery.seconds when
        // that is valid, else against its own bound.
        let imageUpper = secondsValid ? seconds : 600
        let imageSecondsValid = imageSeconds.isFinite && imageSeconds > 0 && imageSeconds <= imageUpper
        if !imageSecondsValid {
            out.append(
                "delivery.imageSeconds must be a number in 0…\(secondsValid ? "delivery.seconds (\(Profile.text(seconds)))" : "600") (exclusive of 0), got \(Profile.text(imageSeconds))"
            )
        }
        // Only now, from valid values (at most 10^10 bit/s × 600 s), the derived byte counts.
        if linkValid && secondsValid && notificationBytes < Self.minNotificationBytes {
            out.append(
                "delivery allows only \(notificationBytes) bytes per notification (linkBitsPerSecond × seconds ÷ 8); at least \(Self.minNotificationBytes) are needed"
            )
        }
        if linkValid && imageSecondsValid && imageBytes < Self.minImageBytes {
            out.append(
                "delivery allows only \(imageBytes) bytes per image (linkBitsPerSecond × imageSeconds ÷ 8); at least \(Self.minImageBytes) are needed"
            )
        }
        return out
    }
}

extension Profile {
    /// The longest time limit a ``Profile/duration(seconds:)`` gives: 10^6 s (11.6 days), far
    /// past any valid limit (at most 3600 s).
    public static let longestDuration: Double = 1_000_000

    /// A time limit of `seconds` as a `Duration`, in whole milliseconds rounded up, that never
    /// traps: a value that is not a positive number gives zero, one past ``longestDuration``
    /// gives that. For a profile without ``problems`` it is the limit itself, at least 1 ms.
    public static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64((min(seconds, longestDuration) * 1000).rounded(.up)))
    }
}
