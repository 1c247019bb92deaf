import Foundation
import Logging
import PushMedia
import PushMediaModel
import PushMediaPreview
import PushMediaQueue

/// The batch runner: a folder through the embedded queue in `OUT/.pushmedia/queue.sqlite`, for
/// `pushmedia process` and for Swift tools that call PushMedia as a library.
///
/// Every file is enqueued (idempotent), workers in this process run until the campaign is
/// drained, and the manifest and preview page are written from the results. Interrupted and run
/// again, it resumes: finished files are not redone, the jobs a killed run left running count
/// that attempt, and a file changed since its job finished is processed again.
///
/// ```swift
/// let batch = QueuedBatch(inputDirectory: input, outputDirectory: out, profile: .default,
///                         concurrency: 2, baseURL: "https://cdn.example.com/spring")
/// for try await event in batch.events() {
///     switch event {
///     case .item(let item): print(item.done, item.total, item.source, item.status)
///     case .summary(let summary): print(summary.manifest, summary.failed)
///     }
/// }
/// ```
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
    /// When set, each item's media work runs in one of its child processes, so a crash costs
    /// that item's attempt, never the batch (`pushmedia process` sets it; a Swift tool that
    /// embeds PushMedia has no `pushmedia item-process` to start, and runs items on threads).
    public var isolation: ItemProcessPool?
    /// Output files side by side or in subfolders by hash; nil (the default): sharded when the
    /// folder has more than ``OutputLayout/shardAbove`` files.
    public var layout: OutputLayout?
    /// Called at the steps of items run on threads of this process (``ItemHooks``: the tests'
    /// gates; nil in the product). An ``isolation`` pool's item processes have their own.
    public var hooks: (any ItemHooks)?
    var logger: Logger

    /// Creates a batch. Its events say what became of each item, so the default logger keeps
    /// only warnings and errors (a lost lease, a queue that cannot be reached); pass one at
    /// `info` for the worker's `job finished` lines.
    public init(
        inputDirectory: URL, outputDirectory: URL, profile: Profile, concurrency: Int, baseURL: String?,
        logger: Logger = QueuedBatch.defaultLogger
    ) {
        self.inputDirectory = inputDirectory.standardizedFileURL.resolvingSymlinksInPath()
        self.outputDirectory = outputDirectory.standardizedFileURL
        self.profile = profile
        self.concurrency = max(1, concurrency)
        self.baseURL = baseURL
        self.logger = logger
    }

    /// `pushmedia` at `warning`: what an embedding program sees unless it passes its own logger.
    public static var defaultLogger: Logger {
        var logger = Logger(label: "pushmedia")
        logger.logLevel = .warning
        return logger
    }

    /// The queue's folder inside the output folder.
    public static let stateFolder = ".pushmedia"
    /// Name of the manifest inside the output folder.
    public static let manifestName = ManifestWriter.jsonName
    /// Name of the NDJSON manifest (one item a line) inside the output folder.
    public static let ndjsonName = ManifestWriter.ndjsonName
    /// Name of the preview page inside the output folder.
    public static let previewName = "preview.html"
    /// Failed items a ``Result`` lists (all are in the manifest).
    public static let failedListed = 100

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// What a finished run made. The manifest is on disk (or in the bucket), not in memory: a
    /// catalogue of 10^6 items would not fit; ``readManifest()`` reads it back.
    public struct Result: Sendable {
        /// The summary event that ended the run.
        public var summary: BatchSummary
        /// The first ``QueuedBatch/failedListed`` failed items, in manifest order.
        public var failed: [Item]
        /// The manifest file written (nil when it went to a bucket).
        public var manifestFile: URL?

        /// The manifest written by the run, read back from ``manifestFile``.
        public func readManifest() throws -> Manifest {
            guard let manifestFile else { throw Failure(description: "the manifest went to \(summary.manifest), not to a file") }
            return try Manifest.decode(from: Data(contentsOf: manifestFile))
        }
    }

    /// The run as an asynchronous sequence: an ``ItemEvent`` per file as it finishes (also for
    /// files an earlier run finished), then the ``BatchSummary``. Ending the iteration early
    /// cancels the run; it resumes when run again.
    public func events() -> AsyncThrowingStream<BatchEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    _ = try await run { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Processes the folder, calling `onEvent` for every event (from any task), and returns the
    /// summary. Memory does not grow with the number of files: they are listed, enqueued and
    /// written to the manifest and preview a page at a time.
    @discardableResult
    public func run(onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) async throws -> Result {
        let started = ContinuousClock.now
        let state = stateDirectory ?? outputDirectory.appendingPathComponent(Self.stateFolder)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let lock = try RunLock(path: state.appendingPathComponent("lock").path)
        defer { lock.release() }
        Self.removeLeftovers(in: outputDirectory)

        let campaign = "process:" + inputDirectory.path
        let profileKey = try ProfileKey.encode(profile)
        let queue = try SQLiteJobQueue(path: state.appendingPathComponent("queue.sqlite").path)
        // What this campaign stores in the output folder is recorded as it is stored: the
        // sweep after the manifest removes only files its ledger names (``OutputSweep``).
        var ledger: OutputLedger?
        if bucket == nil {
            ledger = OutputLedger.of(campaign: campaign, inState: state)
            try FileManager.default.createDirectory(at: OutputLedger.folder(inState: state), withIntermediateDirectories: true)
        }
        let result: Result
        let progress = ItemProgress(onEvent: onEvent)
        do {
            let inputs = try await prepare(campaign: campaign, profileKey: profileKey, queue: queue, progress: progress)
            try await process(inputs, campaign: campaign, queue: queue, ledger: ledger, progress: progress)
            result = try await writeManifest(
                inputs, campaign: campaign, profileKey: profileKey, queue: queue, state: state, ledger: ledger, started: started)
            await queue.close()
        } catch {
            await queue.close()
            throw error
        }
        onEvent(.summary(result.summary))
        return result
    }

    /// Removes the hidden temporary files a killed run left in `folder` and its shard folders
    /// (``OutputLeftovers``); under the run lock no other run is writing them.
    static func removeLeftovers(in folder: URL) {
        OutputLeftovers.remove(in: folder)
    }

    /// The inputs of this run, as far as later steps need them: how many, which (by a hash of
    /// their job's source: 8 bytes each, not their paths), and the output layout.
    struct Inputs {
        var total: Int
        var sources: Set<Int>
        var layout: OutputLayout

        func contains(_ job: Job, profileKey: String) -> Bool {
            job.profile == profileKey && sources.contains(job.source.hashValue)
        }
    }

    /// Gives back what a killed run held, re-queues files changed since their job finished,
    /// lists the folder and enqueues it a chunk at a time (idempotent), and reports the files an
    /// earlier run finished.
    private func prepare(
        campaign: String, profileKey: String, queue: SQLiteJobQueue, progress: ItemProgress
    ) async throws -> Inputs {
        // Only this process uses the queue (the lock says so): a job still running belongs to a
        // run that was killed or crashed on it. Its attempt counts, so a file that crashes the
        // process every time ends dead (`worker_crashed`) after its attempts instead of killing
        // every run. (A run stopped with SIGINT or SIGTERM gave its jobs back uncounted.)
        // A file replaced since its job finished is processed again.
        try await queue.forEachPage(campaign: campaign) { page in
            for job in page where job.state == .running {
                if let owner = job.leaseOwner { _ = try await queue.abandon(jobID: job.id, owner: owner) }
            }
            let stale = page.filter { job in
                guard job.state.isTerminal, job.profile == profileKey, let (size, modified) = attributes(ofJobSource: job.source)
                else { return false }
                return Self.sourceChanged(job: job, size: size, modified: modified)
            }
            if !stale.isEmpty { _ = try await queue.requeue(jobIDs: stale.map(\.id), reason: "the source changed after the job finished") }
            // A result that does not read back (a damaged state file, a result of a format this
            // version cannot read) would be a failed item on every run: the file is processed again.
            let unreadable = page.filter { $0.profile == profileKey && Self.resultUnreadable(job: $0) }
            if !unreadable.isEmpty { _ = try await queue.requeue(jobIDs: unreadable.map(\.id), reason: "its stored result could not be read") }
        }

        // A name that is not UTF-8 is escaped in its job's source (EscapedPath.jobSource).
        let walk = try InputScanner.Walk(root: inputDirectory, excluding: [outputDirectory])
        var inputs = Inputs(total: 0, sources: [], layout: .flat)
        while true {
            let chunk = try walk.next(upTo: 1000)
            if chunk.isEmpty { break }
            _ = try await queue.enqueue(chunk.map { NewJob(campaign: campaign, source: $0.jobSource, profile: profileKey, maxAttempts: 3) })
            for input in chunk { inputs.sources.insert(input.jobSource.hashValue) }
            inputs.total += chunk.count
        }
        inputs.layout = layout ?? OutputLayout.forBatch(inputs: inputs.total)

        try await queue.forEachPage(campaign: campaign) { page in
            for job in page where job.state.isTerminal && inputs.contains(job, profileKey: profileKey) {
                let item = ManifestAssembler.item(from: job, baseURL: nil)
                progress.finished { ItemEvent(item: item, ms: 0, attempt: job.attempts, done: $0, total: inputs.total, resumed: true) }
            }
        }
        return inputs
    }

    /// Runs workers in this process until the campaign is drained.
    private func process(_ inputs: Inputs, campaign: String, queue: SQLiteJobQueue, ledger: OutputLedger?, progress: ItemProgress) async throws {
        var handler = MediaJobHandler(
            root: inputDirectory, outputDirectory: outputDirectory, queue: queue, fetcher: nil, logger: logger,
            bucket: bucket
        ) { finished in
            progress.finished {
                ItemEvent(
                    item: finished.item, ms: finished.duration.milliseconds, attempt: finished.attempt, done: $0, total: inputs.total,
                    resumed: false)
            }
        }
        handler.isolation = isolation
        handler.layout = inputs.layout
        handler.hooks = hooks
        handler.ledger = ledger
        let jobHandler = handler
        let worker = QueueWorker(
            queue: queue,
            configuration: QueueWorker.Configuration(
                concurrency: concurrency, campaign: campaign, leaseDuration: .seconds(120), pollInterval: .milliseconds(100),
                retryPolicy: RetryPolicy(base: .milliseconds(200), factor: 2, cap: .seconds(5)),
                // A full or failing output or state folder ends the run (the command exits 2);
                // the jobs it met go back uncounted, so a rerun with space resumes exactly.
                onStorageFailure: .stop, failureBackoff: RetryPolicy(base: .milliseconds(100), factor: 2, cap: .seconds(5)),
                resultMetadata: MediaJobHandler.logMetadata(forResult:)),
            logger: logger, handler: { try await jobHandler.handle($0) })
        try await worker.runUntilDrained(campaign: campaign)
        // Cancelled (Ctrl-C): the worker gave the jobs in progress back; no manifest of a half run.
        try Task.checkCancellation()
    }

    /// Streams the finished jobs, a page at a time, into the manifest (JSON and NDJSON) and the
    /// preview, next to the files they describe (or uploaded to the bucket), written last.
    private func writeManifest(
        _ inputs: Inputs, campaign: String, profileKey: String, queue: SQLiteJobQueue, state: URL, ledger: OutputLedger?,
        started: ContinuousClock.Instant
    ) async throws -> Result {
        // Into the output folder; with a bucket, into a staging folder, then uploaded.
        let folder = bucket == nil ? outputDirectory : state.appendingPathComponent("documents")
        if bucket != nil {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let manifest = try ManifestWriter(directory: folder, profile: profile)
        let preview = PreviewBook(
            renderer: PreviewRenderer(), directory: folder, attachmentsPrefix: "", generator: .current,
            generatedAt: manifest.generatedAt, profile: profile)
        var failed: [Item] = []
        // The files the manifest names, by their paths' hashes (8 bytes each, not the paths),
        // and, for the campaign's ledger once the sweep has run, by their paths on disk.
        var referenced = Set<Int>()
        let sweep = ledger.map { OutputSweep(folder: outputDirectory, ledger: $0) }
        let nextLedger = try sweep.map { try LedgerWriter(file: $0.nextLedgerFile) }
        do {
            try await queue.forEachPage(campaign: campaign) { page in
                for job in page where inputs.contains(job, profileKey: profileKey) {
                    guard let item = try ManifestAssembler.add(job, baseURL: baseURL, to: manifest, decodingWhole: true) else { continue }
                    try preview.add(item)
                    if item.status == .failed && failed.count < Self.failedListed { failed.append(item) }
                    for attachment in item.attachments {
                        referenced.insert(attachment.file.hashValue)
                        try nextLedger?.add(attachment.file)
                    }
                }
            }
            try nextLedger?.close()
        } catch {
            manifest.discard()
            throw error
        }
        let summary = try manifest.finish()
        let pages = try preview.finish()
        // The output folder holds what its manifest names of this campaign's files: what else it
        // stored is removed; what it did not store (a person's files, another campaign's) stays.
        var removed = 0
        if let sweep {
            do {
                let kept = try await OutputSweep.filesOfCampaignsWithoutLedgers(queue: queue, state: state, besides: campaign)
                try sweep.run(referenced: referenced, kept: kept, removed: &removed)
            } catch {
                logger.warning(
                    "cannot remove the output files the manifest no longer names",
                    metadata: ["error": "\(error)", "folder": "\(outputDirectory.path)"])
            }
            if removed > 0 { logger.notice("removed output files of this campaign the manifest no longer names", metadata: ["files": "\(removed)"]) }
        }
        let written: (manifest: String, ndjson: String, preview: String, folder: String)
        if let bucket {
            for name in [Self.ndjsonName, Self.manifestName] {
                try await bucket.putFile(
                    folder.appendingPathComponent(name), name: name,
                    contentType: name == Self.manifestName ? "application/json" : "application/x-ndjson")
            }
            // preview.html last: its links point at the pages.
            for page in pages {
                try await bucket.putFile(folder.appendingPathComponent(page), name: page, contentType: "text/html; charset=utf-8")
            }
            try? FileManager.default.removeItem(at: folder)
            written = (
                bucket.location.uri(Self.manifestName), bucket.location.uri(Self.ndjsonName), bucket.location.uri(Self.previewName),
                bucket.location.description
            )
        } else {
            written = (
                outputDirectory.appendingPathComponent(Self.manifestName).path, outputDirectory.appendingPathComponent(Self.ndjsonName).path,
                outputDirectory.appendingPathComponent(Self.previewName).path, outputDirectory.path
            )
        }
        let event = BatchSummary(
            manifest: written.manifest, ndjson: written.ndjson, preview: written.preview, outputDirectory: written.folder,
            summary: summary, ms: (ContinuousClock.now - started).milliseconds, removedFiles: removed)
        return Result(summary: event, failed: failed, manifestFile: bucket == nil ? outputDirectory.appendingPathComponent(Self.manifestName) : nil)
    }

    /// Numbers finished items and hands their events on, one at a time and in the order of their
    /// numbers, from whichever task finished them.
    final class ItemProgress: @unchecked Sendable {
        private let lock = NSLock()
        private var done = 0
        private let onEvent: @Sendable (BatchEvent) -> Void

        init(onEvent: @escaping @Sendable (BatchEvent) -> Void) {
            self.onEvent = onEvent
        }

        func finished(_ event: (_ done: Int) -> ItemEvent) {
            lock.lock()
            defer { lock.unlock() }
            done += 1
            onEvent(.item(event(done)))
        }
    }
}
