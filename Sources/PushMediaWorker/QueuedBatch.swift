import Foundation
import Logging
import PushMedia
import PushMediaModel
import PushMediaQueue

/// `pushmedia process`: a folder through the embedded queue in `OUT/.pushmedia/queue.sqlite`.
/// Every file is enqueued (idempotent), workers in this process run until the campaign is
/// drained, and the manifest is assembled from the results. Interrupted (Ctrl-C, kill -9) and run
/// again, it resumes: finished files are not redone, leases of the killed run are given back,
/// and a file changed since its job finished is processed again.
public struct QueuedBatch: Sendable {
    public var inputDirectory: URL
    public var outputDirectory: URL
    public var profile: Profile
    public var concurrency: Int
    public var baseURL: String?
    /// Outputs go to this bucket instead of ``outputDirectory`` (`process --out s3://…`).
    public var bucket: BucketOutput?
    /// The embedded queue's folder (default: `OUT/.pushmedia`; set it with ``bucket``).
    public var stateDirectory: URL?
    var logger: Logger

    public init(
        inputDirectory: URL, outputDirectory: URL, profile: Profile, concurrency: Int, baseURL: String?,
        logger: Logger = Logger(label: "pushmedia")
    ) {
        self.inputDirectory = inputDirectory.standardizedFileURL.resolvingSymlinksInPath()
        self.outputDirectory = outputDirectory.standardizedFileURL
        self.profile = profile
        self.concurrency = max(1, concurrency)
        self.baseURL = baseURL
        self.logger = logger
    }

    /// The queue's folder inside the output folder.
    public static let stateFolder = ".pushmedia"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Processes the folder and returns the manifest (also written to the output folder).
    /// `progress` is called once per file, also for files finished by an earlier run.
    public func run(progress: @escaping @Sendable (Item, _ done: Int, _ total: Int) -> Void = { _, _, _ in }) async throws
        -> Manifest
    {
        let state = stateDirectory ?? outputDirectory.appendingPathComponent(Self.stateFolder)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let lock = try RunLock(path: state.appendingPathComponent("lock").path)
        defer { lock.release() }

        let inputs = try InputScanner.files(in: inputDirectory, excluding: [outputDirectory])
        let campaign = "process:" + inputDirectory.path
        let profileKey = try ProfileKey.encode(profile)
        let queue = try SQLiteJobQueue(path: state.appendingPathComponent("queue.sqlite").path)
        do {
            let manifest = try await run(inputs: inputs, campaign: campaign, profileKey: profileKey, queue: queue, progress: progress)
            await queue.close()
            return manifest
        } catch {
            await queue.close()
            throw error
        }
    }

    private func run(
        inputs: [InputFile], campaign: String, profileKey: String, queue: SQLiteJobQueue,
        progress: @escaping @Sendable (Item, Int, Int) -> Void
    ) async throws -> Manifest {
        // Only this process uses the queue (the lock says so): what a killed run was doing goes back.
        let earlier = try await queue.jobs(campaign: campaign)
        for job in earlier where job.state == .running {
            if let owner = job.leaseOwner { _ = try await queue.release(jobID: job.id, owner: owner) }
        }
        // A file replaced since its job finished is processed again.
        let stale = earlier.filter { job in
            guard job.state.isTerminal, job.profile == profileKey else { return false }
            let path = inputDirectory.appendingPathComponent(job.source).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return false }
            return Self.sourceChanged(
                job: job, size: (attributes[.size] as? NSNumber)?.intValue, modified: attributes[.modificationDate] as? Date)
        }
        if !stale.isEmpty { _ = try await queue.requeue(jobIDs: stale.map(\.id), reason: "the source changed after the job finished") }

        let sources = Set(inputs.map(\.source))
        let jobs = try await queue.enqueue(
            inputs.map { NewJob(campaign: campaign, source: $0.source, profile: profileKey, maxAttempts: 3) })
        let total = jobs.count
        let counter = Counter()
        let staleIDs = Set(stale.map(\.id))
        for job in jobs where job.state.isTerminal && !staleIDs.contains(job.id) {
            let done = counter.next()
            progress(ManifestAssembler.items(from: [job], baseURL: baseURL)[0], done, total)
        }
        let handler = MediaJobHandler(
            root: inputDirectory, outputDirectory: outputDirectory, queue: queue, fetcher: nil, logger: logger, bucket: bucket
        ) { item in
            var shown = item
            shown.attachments = shown.attachments.map { var a = $0; a.url = nil; return a }
            progress(shown, counter.next(), total)
        }
        let worker = QueueWorker(
            queue: queue,
            configuration: QueueWorker.Configuration(
                concurrency: concurrency, campaign: campaign, leaseDuration: .seconds(120), pollInterval: .milliseconds(100),
                retryPolicy: RetryPolicy(base: .milliseconds(200), factor: 2, cap: .seconds(5))),
            logger: logger, handler: { try await handler.handle($0) })
        try await worker.runUntilDrained(campaign: campaign)

        let finished = try await queue.jobs(campaign: campaign).filter { sources.contains($0.source) && $0.profile == profileKey }
        let manifest = ManifestAssembler.manifest(from: finished, baseURL: baseURL)
        if let bucket {
            try await bucket.put(manifest.jsonData(), name: BatchProcessor.manifestName, contentType: "application/json")
        } else {
            try OutputStore.writeAtomically(manifest.jsonData(), to: outputDirectory.appendingPathComponent(BatchProcessor.manifestName))
        }
        return manifest
    }

    /// Whether a finished job's source file changed since: modified after the job finished, or,
    /// like rsync's quick check, a size other than the bytes the job read (a replacement unpacked
    /// from an archive or copied with `cp -p` keeps an older modification time).
    static func sourceChanged(job: Job, size: Int?, modified: Date?) -> Bool {
        guard job.state.isTerminal else { return false }
        if let modified, let finished = job.finishedAt, modified > finished { return true }
        let read = job.result.flatMap { try? Item.decode(from: $0) }?.sourceBytes
        if let size, let read, size != read { return true }
        return false
    }

    /// Counts finished items from any task.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }
}

/// An exclusive lock on a file (`flock`), held while one `process` run uses an output folder.
final class RunLock {
    private var descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw QueuedBatch.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            descriptor = -1
            throw QueuedBatch.Failure(description: "another pushmedia process is using \(path) (its output folder is busy)")
        }
    }

    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
