/// The result of ``JobStateMachine`` applying one transition to the jobs a queue operation selected.
struct AppliedTransition: Sendable, Hashable {
    /// The changed jobs, in the order they were selected; each backend writes them back.
    let jobs: [Job]
    /// Whether any job came out claimable at once (re-queued, released, rescued), so idle workers
    /// should be woken.
    let wakesWorkers: Bool
}
