/// The life-cycle state of a ``Job``.
///
/// `queued → running → succeeded | failed | retrying → … | dead`. See ``JobStateMachine`` for the
/// legal transitions.
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Waiting to be claimed (its run-at is due or in the future).
    case queued
    /// Claimed by a worker that holds its lease.
    case running
    /// Finished; `result` holds the manifest item.
    case succeeded
    /// Finished with a permanent error; `result` holds the failed item. Never retried.
    case failed
    /// Failed with a transient error; claimable again once its run-at is due.
    case retrying
    /// Out of attempts; keeps its last error until ``JobQueue/retryDead(campaign:)`` re-queues it.
    case dead

    /// Whether the job is finished for good (unless re-queued by hand).
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .dead: true
        case .queued, .running, .retrying: false
        }
    }

    public var description: String { rawValue }

    /// The finished states (``isTerminal``), in declaration order: what SQL lists as "finished".
    static let terminalStates: [JobState] = allCases.filter(\.isTerminal)
}
