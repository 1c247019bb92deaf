import Foundation

/// An event applied to a job by ``JobStateMachine``.
public enum JobTransition: Sendable, Hashable {
    /// A worker claims the job (queued or due retrying → running); counts one attempt.
    case claim(owner: String, leaseExpiresAt: Date)
    /// The lease holder extends its lease.
    case heartbeat(owner: String, leaseExpiresAt: Date)
    /// The lease holder finished the job.
    case succeed(owner: String, result: Data)
    /// The lease holder failed the job permanently (no retry); `result` holds the failed item.
    case failPermanently(owner: String, error: JobError, result: Data?)
    /// The lease holder failed the job transiently: retried at `retryAt`, or dead when out of attempts.
    case failTransiently(owner: String, error: JobError, retryAt: Date)
    /// The lease expired: back to queued (the attempt counts) or dead when out of attempts.
    case rescue
    /// The lease holder is known to be gone before its lease expired (a `process` run killed or
    /// crashed, found by the next run that holds the queue's lock): as ``rescue``, the attempt
    /// counts; back to queued, or dead when out of attempts.
    case abandon(owner: String)
    /// Graceful shutdown: the lease holder gives the job back without counting the attempt.
    case release(owner: String)
    /// A dead job is re-queued by hand with its attempts reset.
    case retryDead
    /// A finished job (succeeded, failed or dead) is queued to be processed again, e.g. because
    /// its source changed: attempts reset, result cleared.
    case reprocess(reason: String)

    /// A short name for messages.
    public var name: String {
        switch self {
        case .claim: "claim"
        case .heartbeat: "heartbeat"
        case .succeed: "succeed"
        case .failPermanently: "failPermanently"
        case .failTransiently: "failTransiently"
        case .rescue: "rescue"
        case .abandon: "abandon"
        case .release: "release"
        case .retryDead: "retryDead"
        case .reprocess: "reprocess"
        }
    }
}
