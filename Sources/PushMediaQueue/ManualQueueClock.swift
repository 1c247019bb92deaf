import Foundation
import NIOConcurrencyHelpers

/// A clock that only moves when told to (for tests and simulations).
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
        current.withLockedValue { $0 = $0.addingTimeInterval(duration.seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.withLockedValue { $0 = date }
    }
}
