/// Options shared by both queue backends.
public struct JobQueueOptions: Sendable {
    /// Where the queue gets the time from (the real clock unless testing).
    public var clock: any QueueClock
    /// Attempts allowed for jobs enqueued without their own ``NewJob/maxAttempts``.
    public var defaultMaxAttempts: Int
    /// How long ``JobQueue/waitForWork(timeout:)`` polls between checks where there is no
    /// notification channel (SQLite), and the fallback poll on PostgreSQL.
    public var pollInterval: Duration

    /// Creates options.
    public init(
        clock: any QueueClock = SystemQueueClock(), defaultMaxAttempts: Int = Job.defaultMaxAttempts,
        pollInterval: Duration = .seconds(1)
    ) {
        self.clock = clock
        self.defaultMaxAttempts = max(1, defaultMaxAttempts)
        self.pollInterval = pollInterval
    }
}
