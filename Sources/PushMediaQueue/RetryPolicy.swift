import Foundation

/// Exponential backoff with jitter for transient failures. Pure: the random source is injected.
///
/// The delay after attempt `n` (1-based) is `min(cap, base × factor^(n-1))`, then scaled by a
/// random factor in `[1 - jitter, 1 + jitter]` (and capped again).
public struct RetryPolicy: Sendable {
    /// The delay after the first attempt.
    public var base: Duration
    /// The growth factor per attempt (≥ 1).
    public var factor: Double
    /// The longest delay.
    public var cap: Duration
    /// The jitter fraction in `0...1` (0.2 means ±20 %).
    public var jitter: Double
    /// Returns a uniformly distributed number in `0..<1`.
    public var random: @Sendable () -> Double

    /// Creates a policy.
    public init(
        base: Duration = .seconds(5), factor: Double = 2, cap: Duration = .seconds(600), jitter: Double = 0.2,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.base = base
        self.factor = max(1, factor)
        self.cap = cap
        self.jitter = min(1, max(0, jitter))
        self.random = random
    }

    /// The default policy: 5 s, ×2, capped at 10 min, ±20 % jitter.
    public static let `default` = RetryPolicy()

    /// The delay before retrying a job whose attempt number `attempt` (1-based) just failed.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let baseSeconds = base.seconds
        let capSeconds = cap.seconds
        let exponent = Double(max(0, attempt - 1))
        var seconds = min(capSeconds, baseSeconds * pow(factor, exponent))
        if jitter > 0 {
            let r = min(max(random(), 0), 1)
            seconds *= 1 + jitter * (2 * r - 1)
        }
        seconds = min(capSeconds, max(0, seconds))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
