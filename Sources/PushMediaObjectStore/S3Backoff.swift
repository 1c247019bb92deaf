import Foundation

/// How often and how long to wait before a request that failed transiently (no answer, 5xx,
/// slow down) is sent again. Pure: the random source is injected.
public struct S3Backoff: Sendable {
    /// Attempts in all, the first included.
    public var attempts: Int
    /// The wait after the first failure; it doubles after each further one, up to ``longest``.
    public var first: Duration
    public var longest: Duration
    /// Returns a number in `0..<1`; the wait is scaled into `[½, 1]` of its value (jitter, so
    /// workers that failed together do not retry together).
    public var random: @Sendable () -> Double

    public init(
        attempts: Int = 5, first: Duration = .milliseconds(250), longest: Duration = .seconds(8),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.attempts = max(1, attempts)
        self.first = first
        self.longest = longest
        self.random = random
    }

    /// The wait after failed attempt `attempt` (1-based), or nil when no attempt is left.
    public func wait(afterAttempt attempt: Int) -> Duration? {
        guard attempt < attempts else { return nil }
        let doubled = first * (1 << min(attempt - 1, 20))
        let capped = min(doubled, longest)
        return capped * (0.5 + 0.5 * min(max(random(), 0), 1))
    }
}
