import Foundation
import NIOConcurrencyHelpers
import PushMediaQueue

/// A queue clock that only moves when told to: lease expiry and backoff tested without sleeping.
public final class ManualQueueClock: QueueClock {
    private let current: NIOLockedValueBox<Date>

    /// Creates a clock reading `start` (defaults to a fixed, millisecond-exact instant).
    public init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = NIOLockedValueBox(start)
    }

    /// The time the clock reads.
    public func now() -> Date { current.withLockedValue { $0 } }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        current.withLockedValue { $0 = $0.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.withLockedValue { $0 = date }
    }
}
