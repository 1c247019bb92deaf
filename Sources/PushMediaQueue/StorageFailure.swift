/// The storage that work is written to failed: the queue's database, the output folder or a
/// temporary folder is out of space or inodes, read-only, or gave an I/O error.
///
/// It is not the job's fault, and trying the next job at once cannot help. A ``QueueWorker``
/// that meets one, from a claim, from recording an outcome or thrown by its handler, gives the
/// job back uncounted and acts on ``QueueWorker/Configuration/onStorageFailure``: it stops (the
/// run ends with this error: `pushmedia process` exits 2) or it pauses claiming, backing off,
/// and reports itself unhealthy until the storage works again (`pushmedia worker`).
public struct StorageFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder or file that could not be written.
    public var place: String
    /// What failed, in words (`No space left on device`, SQLite's message…).
    public var reason: String

    public init(place: String, reason: String) {
        self.place = place
        self.reason = reason
    }

    /// `cannot write to PLACE: REASON`, or the reason alone when it names the place already.
    public var description: String { reason.contains(place) ? reason : "cannot write to \(place): \(reason)" }
}
