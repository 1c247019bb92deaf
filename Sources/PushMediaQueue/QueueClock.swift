import Foundation

/// Where a queue gets the time from. Injected so that lease expiry and backoff are testable
/// without sleeping; only "what time is it" goes through it (polling uses real sleeps).
public protocol QueueClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The real clock.
public struct SystemQueueClock: QueueClock {
    /// Creates the real clock.
    public init() {}
    /// The current wall-clock time.
    public func now() -> Date { Date() }
}
