/// Why ``JobStateMachine`` refused a transition.
public enum JobStateMachineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transition is not legal from the job's state.
    case illegalTransition(jobID: JobID, from: JobState, transition: String)
    /// The caller does not hold the job's lease (it expired and was rescued, or another worker has it).
    case leaseNotHeld(jobID: JobID, owner: String, actualOwner: String?)
    /// A rescue was asked for a lease that has not expired yet.
    case leaseNotExpired(jobID: JobID)

    public var description: String {
        switch self {
        case .illegalTransition(let id, let from, let transition):
            "job \(id): transition \(transition) is illegal from state \(from)"
        case .leaseNotHeld(let id, let owner, let actual):
            "job \(id): lease not held by \(owner) (held by \(actual ?? "nobody"))"
        case .leaseNotExpired(let id):
            "job \(id): lease has not expired"
        }
    }
}
