import Foundation

/// The identifier of a ``Job`` (a database row id).
public typealias JobID = Int64

/// A durable media job, as stored by a ``JobQueue``.
public struct Job: Sendable, Hashable, Identifiable {
    /// The row id.
    public var id: JobID
    /// The campaign the job belongs to.
    public var campaign: String
    /// The media source: a path relative to the input root or an http(s) URL.
    public var source: String
    /// The profile key (e.g. a profile hash); opaque to the queue.
    public var profile: String
    /// The current state.
    public var state: JobState
    /// Attempts started so far (a claim counts one; a graceful release gives it back).
    public var attempts: Int
    /// Attempts allowed before the job is dead.
    public var maxAttempts: Int
    /// When the job may be claimed (again).
    public var runAt: Date
    /// The worker holding the lease, while running.
    public var leaseOwner: String?
    /// When the lease expires, while running.
    public var leaseExpiresAt: Date?
    /// The last error, if any.
    public var lastError: JobError?
    /// Every failure, rescue and re-queue, oldest first.
    public var errorHistory: [JobNote]
    /// The result (the manifest item, opaque JSON bytes) once succeeded or failed.
    public var result: Data?
    /// When the job was first enqueued.
    public var createdAt: Date
    /// When the job last changed.
    public var updatedAt: Date
    /// When the job reached a terminal state.
    public var finishedAt: Date?

    /// Creates a job value (the queues create jobs; this is public for tests and tools).
    public init(
        id: JobID, campaign: String, source: String, profile: String, state: JobState = .queued,
        attempts: Int = 0, maxAttempts: Int = Job.defaultMaxAttempts, runAt: Date,
        leaseOwner: String? = nil, leaseExpiresAt: Date? = nil, lastError: JobError? = nil,
        errorHistory: [JobNote] = [], result: Data? = nil, createdAt: Date, updatedAt: Date,
        finishedAt: Date? = nil
    ) {
        self.id = id
        self.campaign = campaign
        self.source = source
        self.profile = profile
        self.state = state
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.runAt = runAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.lastError = lastError
        self.errorHistory = errorHistory
        self.result = result
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }

    /// The default number of attempts before a job is dead.
    public static let defaultMaxAttempts = 5
}
