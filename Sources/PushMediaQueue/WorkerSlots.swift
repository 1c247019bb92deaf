/// Slot accounting of a ``QueueWorker`` (pure): which jobs run, how many slots are free, which
/// jobs were released at shutdown (their handler's late outcome must not be reported).
public struct WorkerSlots: Sendable, Hashable {
    /// The number of concurrent slots.
    public let capacity: Int
    /// The jobs running now, by id.
    public private(set) var running: [JobID: Job] = [:]
    /// Jobs given back to the queue while their handler still ran.
    public private(set) var released: Set<JobID> = []

    /// Creates `capacity` free slots (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Slots in use.
    public var inUse: Int { running.count }
    /// Free slots.
    public var free: Int { max(0, capacity - running.count) }

    /// Takes a slot for `job`. Returns false when full or the job already runs.
    public mutating func acquire(_ job: Job) -> Bool {
        guard free > 0, running[job.id] == nil else { return false }
        running[job.id] = job
        return true
    }

    /// Frees the slot of `id`. Returns whether it was held.
    @discardableResult
    public mutating func finish(_ id: JobID) -> Bool {
        running.removeValue(forKey: id) != nil
    }

    /// Marks every running job released (to be given back to the queue) and returns them.
    public mutating func releaseAll() -> [Job] {
        let jobs = running.values.sorted { $0.id < $1.id }
        released.formUnion(jobs.map(\.id))
        return jobs
    }

    /// Whether `id` was released at shutdown.
    public func isReleased(_ id: JobID) -> Bool { released.contains(id) }
}
