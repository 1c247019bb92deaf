import Foundation

extension Date {
    /// Milliseconds since 1970 (how SQLite stores times).
    var queueMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// A date from milliseconds since 1970.
    init(queueMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(queueMilliseconds) / 1000)
    }

    /// This date moved by a duration.
    func adding(_ duration: Duration) -> Date { addingTimeInterval(duration.seconds) }
}
