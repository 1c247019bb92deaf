import Foundation

/// Which stored jobs one queue operation changes, as criteria that each backend turns into its own
/// `SELECT … FOR UPDATE`. The states come from ``JobState`` and ``JobStateMachine``, so no state
/// list is typed into SQL by hand.
struct JobSelection: Sendable, Hashable {
    /// The order the selected jobs are changed and returned in.
    enum Order: Sendable, Hashable {
        /// By id.
        case id
        /// Oldest run-at first, then by id (claims).
        case runAtThenID
    }

    /// Only these jobs (any job when nil).
    var ids: [JobID]?
    /// Only jobs in these states (any state when nil).
    var states: [JobState]?
    /// Only jobs of this campaign (any campaign when nil).
    var campaign: String?
    /// Only jobs whose run-at is at or before this time.
    var runAtDueBy: Date?
    /// Only jobs whose lease expires at or before this time.
    var leaseExpiredBy: Date?
    /// Only jobs whose lease this owner holds.
    var leaseOwner: String?
    /// The order.
    var order: Order = .id
    /// At most this many jobs (all when nil).
    var limit: Int?
    /// Jobs another transaction has locked are passed over instead of waited for (claims and
    /// rescues, which several workers run at once). PostgreSQL only: SQLite's write lock already
    /// serialises every change.
    var skipsLockedJobs = false

    /// One job, by id (the lease-holder operations).
    static func job(_ id: JobID) -> JobSelection {
        JobSelection(ids: [id])
    }

    /// Up to `limit` jobs a claim may take at `now`, of `campaign` (any when nil), oldest run-at first.
    static func claimable(campaign: String?, limit: Int, at now: Date) -> JobSelection {
        JobSelection(
            states: JobStateMachine.claimableStates, campaign: campaign, runAtDueBy: now, order: .runAtThenID,
            limit: limit, skipsLockedJobs: true)
    }

    /// Running jobs whose lease expired by `now`.
    static func expiredLeases(at now: Date) -> JobSelection {
        JobSelection(states: [.running], leaseExpiredBy: now, skipsLockedJobs: true)
    }

    /// The dead jobs of `campaign` (all campaigns when nil).
    static func dead(campaign: String?) -> JobSelection {
        JobSelection(states: [.dead], campaign: campaign)
    }

    /// The finished jobs (``JobState/isTerminal``) among `ids`.
    static func finished(_ ids: [JobID]) -> JobSelection {
        JobSelection(ids: ids, states: JobState.terminalStates)
    }
}
