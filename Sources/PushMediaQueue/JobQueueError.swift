/// Errors thrown by ``JobQueue`` implementations.
public enum JobQueueError: Error, Sendable, CustomStringConvertible {
    /// No job has this id.
    case jobNotFound(JobID)
    /// The caller's lease on the job is gone (expired and rescued, released, or finished), so its
    /// update was refused.
    case leaseLost(jobID: JobID, owner: String)
    /// The transition is not legal from the job's current state.
    case illegalTransition(JobStateMachineError)
    /// A stored row could not be read back (corrupt or foreign data).
    case corruptRow(table: String, reason: String)
    /// The database could not be opened or migrated.
    case openFailed(url: String, reason: String)
    /// The PostgreSQL server could not be reached after retrying.
    case connectionFailed(reason: String)
    /// An argument is out of range.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .jobNotFound(let id): "job \(id) not found"
        case .leaseLost(let id, let owner): "job \(id): lease lost by \(owner); update refused"
        case .illegalTransition(let error): error.description
        case .corruptRow(let table, let reason): "corrupt row in \(table): \(reason)"
        case .openFailed(let url, let reason): "could not open queue \(url): \(reason)"
        case .connectionFailed(let reason): "PostgreSQL unreachable: \(reason)"
        case .invalidArgument(let message): "invalid argument: \(message)"
        }
    }

    /// Maps a state machine refusal to the queue's error.
    init(_ error: JobStateMachineError) {
        switch error {
        case .leaseNotHeld(let id, let owner, _): self = .leaseLost(jobID: id, owner: owner)
        default: self = .illegalTransition(error)
        }
    }
}
