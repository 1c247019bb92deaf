/// The phases of a ``QueueWorker`` (pure): running → draining (no new claims; running jobs get
/// the grace period) → releasing (the rest go back to the queue) → stopped.
public enum WorkerShutdownPhase: Sendable, Hashable {
    /// Claiming and processing.
    case running
    /// Graceful shutdown began: no new claims, running jobs may finish.
    case draining
    /// The grace period is over: remaining jobs are being released.
    case releasing
    /// Done.
    case stopped

    /// Whether the worker may claim new jobs.
    public var acceptsNewJobs: Bool { self == .running }

    /// The next phase (a phase never goes back).
    public var next: WorkerShutdownPhase {
        switch self {
        case .running: .draining
        case .draining: .releasing
        case .releasing, .stopped: .stopped
        }
    }

    /// Moves forward to `phase` if it is later than the current one.
    public mutating func advance(to phase: WorkerShutdownPhase) {
        if phase.order > order { self = phase }
    }

    private var order: Int {
        switch self {
        case .running: 0
        case .draining: 1
        case .releasing: 2
        case .stopped: 3
        }
    }
}
