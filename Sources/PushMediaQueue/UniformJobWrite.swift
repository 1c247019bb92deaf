import Foundation

/// What a transition writes when the write is the same for every job it may change, and which
/// jobs it may change, as plain criteria. ``JobStateMachine`` defines such transitions through it
/// (it is the machine's own rule, not a copy), so a backend may write it in the very statement that
/// selects and locks the jobs, one round trip instead of lock → read → write back.
///
/// A claim (running, one more attempt, the new lease), a heartbeat (the lease's new expiry) and a
/// success (the result, finished, lease cleared) have one; a failure appends to the job's error
/// history with its attempt number, a rescue or release depends on the attempts left, so they
/// have none.
struct UniformJobWrite: Sendable, Hashable {
    /// What a finishing write sets besides the state.
    struct Finish: Sendable, Hashable {
        let result: Data?
        let lastError: JobError?
        let finishedAt: Date
    }

    /// The states the transition is legal from.
    let fromStates: [JobState]
    /// When set, the transition is legal only for jobs whose run-at is at or before this time.
    let runAtDueBy: Date?
    /// When set, the transition is legal only for jobs whose lease this owner holds.
    let leaseHeldBy: String?
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
    /// The result, last error and finish time written, when the write finishes the job.
    let finish: Finish?

    /// Whether the transition is legal for `job`: the statement's `WHERE` says the same.
    func accepts(_ job: Job) -> Bool {
        fromStates.contains(job.state) && runAtDueBy.map { job.runAt <= $0 } ?? true
            && leaseHeldBy.map { job.leaseOwner == $0 } ?? true
    }

    /// `job` with the write applied.
    func applied(to job: Job) -> Job {
        var next = job
        next.state = state
        next.attempts += attemptsDelta
        next.leaseOwner = leaseOwner
        next.leaseExpiresAt = leaseExpiresAt
        next.updatedAt = updatedAt
        // Not `if let finish { … }`: built with -O, that binding (and `guard let`,
        // `switch`) kept one extra reference to the result, so every succeeded job's result (a
        // manifest item, ~1.5 KB) stayed in memory until the process ended: +1.2 MB over a
        // 1,000-image batch, without bound in a worker. Debug builds do not do it; the queue
        // benchmark (Benchmarks/QueueOverhead, -O) fails when results are not freed, and
        // `QueueWorkerTests.resultsAreFreed` holds the rest of the path.
        if finish != nil {
            next.result = finish?.result
            next.lastError = finish?.lastError
            next.finishedAt = finish?.finishedAt
        }
        return next
    }

    /// `selection` narrowed to the jobs this write accepts.
    func restricting(_ selection: JobSelection) -> JobSelection {
        var narrowed = selection
        narrowed.states = selection.states.map { states in states.filter(fromStates.contains) } ?? fromStates
        narrowed.runAtDueBy = [selection.runAtDueBy, runAtDueBy].compactMap { $0 }.min()
        if let leaseHeldBy { narrowed.leaseOwner = leaseHeldBy }
        return narrowed
    }
}
