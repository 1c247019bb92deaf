import Foundation
import Logging
import Metrics
import PushMedia
import PushMediaFetch
import PushMediaModel
import PushMediaQueue

/// Turns one queue job into one manifest item: resolves the source (a file under the input root,
/// or a URL downloaded with ``SourceFetcher``), reuses the result of identical bytes under the
/// same profile from the queue's results cache, or runs the pipeline. Items are stored without
/// URLs: the manifest adds them from the base URL when it is assembled.
///
/// Outcomes: an ok item succeeds; an item failed by its input (corrupt, unsupported, over budget,
/// too large…) or by its stored profile (`invalid_profile`: ``ProfileKey/decode(_:)`` checks it
/// like a `--profile` file) fails the job at once; a failure a retry may fix
/// (``MediaJobError/transientCodes``) is thrown so the queue retries it with backoff.
public struct MediaJobHandler: Sendable {
    /// Folder that relative sources are resolved against.
    public var root: URL?
    public var outputDirectory: URL
    public var queue: any JobQueue
    public var fetcher: SourceFetcher?
    /// When set, outputs go to this bucket (through a temporary folder per job), not to
    /// ``outputDirectory``.
    public var bucket: BucketOutput?
    /// When set, each item's media work runs in one of its child processes (crash containment);
    /// else on a thread of this process.
    public var isolation: ItemProcessPool?
    /// Output files side by side, or in subfolders by hash (``OutputLayout``; the worker shards).
    public var layout: OutputLayout = .flat
    /// Called at the steps of items run on a thread of this process (``ItemHooks``: the tests'
    /// gates; nil in the product). An ``isolation`` pool's item processes have their own.
    public var hooks: (any ItemHooks)?
    /// Where the files stored in ``outputDirectory`` are recorded (``OutputLedger``), those of a
    /// reused result included: `process` sets it for its sweep; nil for workers and buckets.
    public var ledger: OutputLedger?
    /// Called once per job with its final item (progress reporting): not for an attempt that
    /// failed in a way the queue will retry, only for the last one.
    public var onItem: (@Sendable (FinishedItem) -> Void)?
    var logger: Logger

    public init(
        root: URL?, outputDirectory: URL, queue: any JobQueue, fetcher: SourceFetcher?,
        logger: Logger = Logger(label: "pushmedia.worker"), bucket: BucketOutput? = nil,
        onItem: (@Sendable (FinishedItem) -> Void)? = nil
    ) {
        self.bucket = bucket
        self.root = root.map { $0.standardizedFileURL }
        self.outputDirectory = outputDirectory
        self.queue = queue
        self.fetcher = fetcher
        self.logger = logger
        self.onItem = onItem
    }

    public func handle(_ job: Job) async throws -> JobOutcome {
        let started = ContinuousClock.now
        let item = try await item(for: job)
        let elapsed = ContinuousClock.now - started
        if let error = item.error, error.code == .storageFailed {
            // Not the item's: the worker gives the job back uncounted and stops or pauses.
            throw StorageFailure(place: bucket == nil ? outputDirectory.path : "the temporary folder", reason: error.message)
        }
        let retried = item.status != .ok && MediaJobError.transientCodes.contains(item.error?.code ?? .internalError)
        let bytesOut = item.attachments.reduce(0) { $0 + $1.bytes }
        if !retried || job.attempts >= job.maxAttempts {
            onItem?(FinishedItem(item: item, attempt: job.attempts, duration: elapsed))
        }
        Counter(label: "pushmedia_bytes_in_total").increment(by: item.sourceBytes ?? 0)
        Counter(label: "pushmedia_bytes_out_total").increment(by: bytesOut)
        if item.error?.code == .overBudget {
            Counter(label: "pushmedia_budget_failures_total", dimensions: [("kind", item.kind.rawValue)]).increment()
        }
        let data = try item.jsonData()
        if item.status == .ok { return .succeeded(result: data, kind: item.kind.rawValue) }
        let error = item.error ?? ItemError(.internalError, "failed without an error")
        if MediaJobError.transientCodes.contains(error.code) {
            throw MediaJobError(code: error.code, message: error.message, isPermanent: false)
        }
        return .failed(result: data, error: JobError(code: error.code.rawValue, message: error.message), kind: item.kind.rawValue)
    }

    /// The item for a job (never throws for bad input: that becomes a failed item).
    func item(for job: Job) async throws -> Item {
        // A source that is not UTF-8 is escaped in the job (EscapedPath.jobSource).
        let source = EscapedPath(jobSource: job.source)
        let profile: Profile
        do {
            profile = try ProfileKey.decode(job.profile)
        } catch {
            // Permanent (not a transient code): every attempt would meet the same profile.
            return .failed(source, error: ItemError(.invalidProfile, "\(error)"))
        }
        if source.isUTF8, SourceLocation.isURL(job.source) {
            guard let fetcher else {
                return .failed(source, error: ItemError(.sourceForbidden, "this worker does not download URL sources"))
            }
            let fetched: FetchedSource
            do {
                fetched = try await fetcher.fetch(job.source)
            } catch let error as SourceFetchError {
                if !error.isPermanent { throw MediaJobError(code: ErrorCode(error.code), message: error.message, isPermanent: false) }
                // A download that cannot succeed is not retried: its code says so.
                let code = error.kind == .downloadFailed ? ErrorCode.sourceUnavailable : ErrorCode(error.code)
                return .failed(source, error: ItemError(code, error.message))
            }
            defer { try? fetched.removeFile() }
            return try await process(path: EscapedPath(text: fetched.fileURL.path), source: source, job: job, profile: profile)
        }
        switch SourceLocation.resolve(source, root: root) {
        case .failure(let error):
            return .failed(source, error: error)
        case .success(let path):
            return try await process(path: path, source: source, job: job, profile: profile)
        }
    }

    private func process(path: EscapedPath, source: EscapedPath, job: Job, profile: Profile) async throws -> Item {
        var input = InputFile(path: path, source: source)
        if let error = input.specialFileError() { return .failed(source, error: error) }
        // Identical bytes under the same profile were processed before: reuse their item when
        // its files are still in the output folder (or bucket). (A path that is not UTF-8 is
        // opened by its bytes to be hashed; the item opens it again where it is processed.)
        let hash = try? OpenedInput(input).hashed()
        if let hash, let cached = try await queue.cachedResult(contentSHA256: hash, profile: job.profile),
            var item = try? Item.decode(from: cached), await outputsExist(item.attachments)
        {
            item.sourcePath = source
            // This campaign now names those files too: its ledger says so, so that no other
            // campaign's sweep takes them as its own to remove.
            if let ledger, bucket == nil {
                do {
                    for attachment in item.attachments { try ledger.record(attachment.file) }
                } catch {
                    throw StorageFailure(place: ledger.file.deletingLastPathComponent().path, reason: "\(error)")
                }
            }
            logger.debug("reused a cached result", metadata: ["job_id": "\(job.id)", "sha256": "\(hash)"])
            return item
        }
        let folder: URL
        do {
            folder = try bucket?.makeJobFolder() ?? outputDirectory
        } catch {
            if OutputStore.storageErrno(of: error) != nil {
                throw StorageFailure(place: FileManager.default.temporaryDirectory.path, reason: "\(error)")
            }
            throw error
        }
        defer { if bucket != nil { try? FileManager.default.removeItem(at: folder) } }
        input.sha256 = hash
        var item: Item
        if let isolation {
            item = await isolation.process(input, profile: profile, outputDirectory: folder, layout: layout, ledger: outputLedger)
        } else {
            let processor = ItemProcessor(
                profile: profile, options: ProcessingOptions(outputDirectory: folder, layout: layout, hooks: hooks, ledger: outputLedger),
                logger: logger)
            let work = input
            item = await BlockingWork.run { processor.process(work) }
        }
        if let bucket { item = await bucket.store(item, from: folder) }
        if let hash, item.status == .ok || !MediaJobError.transientCodes.contains(item.error?.code ?? .internalError) {
            try? await queue.storeCachedResult(try item.jsonData(), contentSHA256: hash, profile: job.profile)
        }
        return item
    }
}

extension OpenedInput {
    /// The SHA-256 of the file (closed afterwards).
    fileprivate func hashed() throws -> String {
        defer { close() }
        return try ContentHash.sha256(ofFileAt: URL(fileURLWithPath: input.path)).sha256
    }
}

extension Item {
    /// A failed item of a job's source (escaped or not).
    static func failed(_ source: EscapedPath, error: ItemError) -> Item {
        .failed(source: source.text, sourceEncoding: source.encoding, error: error)
    }
}

extension MediaJobHandler {
    /// What a worker's `job finished` line says of a job's result (a manifest item): its status,
    /// and the bytes read and written.
    public static func logMetadata(forResult data: Data) -> Logger.Metadata {
        guard let item = try? Item.decode(from: data) else { return [:] }
        return [
            "status": "\(item.status.rawValue)", "bytes_in": "\(item.sourceBytes ?? 0)",
            "bytes_out": "\(item.attachments.reduce(0) { $0 + $1.bytes })",
        ]
    }
}

/// A job's final item, as ``MediaJobHandler`` hands it to progress reporting.
public struct FinishedItem: Sendable {
    public var item: Item
    /// The attempt that finished it (1 for the first).
    public var attempt: Int
    /// Time the handler spent on this attempt.
    public var duration: Duration
}

extension MediaJobHandler {
    /// The ledger an item's files are recorded in: none when they go to a bucket (through a
    /// job folder of their own).
    private var outputLedger: OutputLedger? { bucket == nil ? ledger : nil }

    /// Whether an item's files are at the destination: in the output folder, or stored in the bucket.
    private func outputsExist(_ attachments: [Attachment]) async -> Bool {
        guard let bucket else {
            return attachments.allSatisfy { FileManager.default.fileExists(atPath: outputDirectory.appendingPathComponent($0.file).path) }
        }
        return await bucket.hasStored(attachments)
    }
}
