import Foundation

/// What a transition writes when the write is the same for every job it may change, and which
/// jobs it may change, as plain criteria. ``JobStateMachine`` defines such transitions through it
/// (it is the machine's own rule, not a copy), so a backend may write it in the very statement that
/// selects and locks the jobs, one round trip instead of lock → read → write back.
///
/// Only a claim has one today: running, one more attempt, the new lease.
struct UniformJobWrite: Sendable, Hashable {
    /// The states the transition is legal from.
    let fromStates: [JobState]
    /// The transition is legal only for jobs whose run-at is at or before this time.
    let runAtDueBy: Date
    /// The state written.
    let state: JobState
    /// Added to the job's attempts.
    let attemptsDelta: Int
    /// The lease written (nil clears it).
    let leaseOwner: String?
    /// The lease expiry written.
    let leaseExpiresAt: Date?
    /// The update time written.
    let updatedAt: Date

    /// Whether the transition is legal for `job`: the statement's `WHERE` says the same.
    func accepts(_ job: Job) -> Bool {
        fromStates.contains(job.state) && job.runAt <= runAtDueBy
    }

    /// `job` with the write applied.
    func applied(to job: Job) -> Job {
        var next = job
        next.state = state
        next.attempts += attemptsDelta
        next.leaseOwner = leaseOwner
        next.leaseExpiresAt = leaseExpiresAt
        next.updatedAt = updatedAt
        return next
    }

    /// `selection` narrowed to the jobs this write accepts.
    func restricting(_ selection: JobSelection) -> JobSelection {
        var narrowed = selection
        narrowed.states = selection.states.map { states in states.filter(fromStates.contains) } ?? fromStates
        narrowed.runAtDueBy = selection.runAtDueBy.map { min($0, runAtDueBy) } ?? runAtDueBy
        return narrowed
    }
}
