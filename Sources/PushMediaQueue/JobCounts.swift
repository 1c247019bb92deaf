/// Job counts by state (for one campaign or all).
public struct JobCounts: Sendable, Hashable, CustomStringConvertible {
    /// The count of each state (states without jobs are absent).
    public var byState: [JobState: Int]

    /// Creates counts.
    public init(byState: [JobState: Int] = [:]) {
        self.byState = byState
    }

    /// The count of jobs in `state`.
    public subscript(state: JobState) -> Int { byState[state, default: 0] }

    /// All jobs.
    public var total: Int { byState.values.reduce(0, +) }

    /// Jobs still to do: queued, running or retrying.
    public var pending: Int { self[.queued] + self[.running] + self[.retrying] }

    /// Whether nothing is queued, running or retrying.
    public var isDrained: Bool { pending == 0 }

    public var description: String {
        JobState.allCases.map { "\($0)=\(self[$0])" }.joined(separator: " ")
    }
}
