import Foundation

/// When a piece of work must stop: an instant on the monotonic clock. The one deadline of the
/// media code: the item's (``ItemRun/deadline``) goes as this value to every step, Swift's own
/// checks read it (``hasPassed``), and the C side gets it in the one form all of it takes
/// (`pm_deadline`, CDeadline.h: the same clock, in nanoseconds), whichever library's clock the
/// work runs under.
struct Deadline: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// CLOCK_MONOTONIC in nanoseconds.
    let monotonicNanoseconds: Int64

    /// The instant `duration` from now (before now for a negative one).
    static func after(_ duration: Duration) -> Deadline { .now + duration }

    /// The instant `duration` after `deadline`: clamped to ±31 years, so nothing overflows, and
    /// never 0, which C reads as no deadline.
    static func + (deadline: Deadline, duration: Duration) -> Deadline {
        let (seconds, attoseconds) = duration.components
        let offset = max(-1_000_000_000, min(1_000_000_000, seconds)) * 1_000_000_000 + attoseconds / 1_000_000_000
        return Deadline(monotonicNanoseconds: max(1, deadline.monotonicNanoseconds + offset))
    }

    static func - (deadline: Deadline, duration: Duration) -> Deadline { deadline + (Duration.zero - duration) }

    /// Now: a deadline that has passed as soon as it is compared.
    static var now: Deadline {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Deadline(monotonicNanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// True once the instant has passed.
    var hasPassed: Bool { Deadline.now > self }

    /// The time from now until the instant, negative once it has passed.
    var remaining: Duration { .nanoseconds(monotonicNanoseconds &- Deadline.now.monotonicNanoseconds) }

    static func < (a: Deadline, b: Deadline) -> Bool { a.monotonicNanoseconds < b.monotonicNanoseconds }

    var description: String { "deadline in \(remaining)" }
}
