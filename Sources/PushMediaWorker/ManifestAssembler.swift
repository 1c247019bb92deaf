import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue

/// Builds a campaign's manifest from its jobs' results: one item per job, sorted by source. A
/// dead job becomes a failed item with its last error; a job still queued, running or waiting to
/// retry becomes a failed item `not_processed`, so the manifest always lists every input.
/// Attachment URLs come from `baseURL` here, not from the worker.
public enum ManifestAssembler {
    public static func items(from jobs: [Job], baseURL: String?) -> [Item] {
        jobs.map { item(from: $0, baseURL: baseURL) }
    }

    /// The manifest item of one job.
    public static func item(from job: Job, baseURL: String?) -> Item {
        decoded(job, baseURL: baseURL).item
    }

    /// The item of a job, and whether it is the job's stored result (not a placeholder).
    private static func decoded(_ job: Job, baseURL: String?) -> (item: Item, stored: Bool) {
        let stored = job.result.flatMap { try? Item.decode(from: $0) }
        var item = stored ?? placeholder(for: job)
        item.sourcePath = EscapedPath(jobSource: job.source)
        for index in item.attachments.indices {
            item.attachments[index].url = baseURL.map { OutputStore.url(base: $0, file: item.attachments[index].file) }
        }
        return (item, stored != nil)
    }

    /// Adds a job's item to `writer`: its stored result as it is when nothing is added to it (no
    /// `baseURL`: a result is the item's ``Item/jsonData()``, source included), so only what the
    /// summary counts is read from it; else the item, decoded and given its URLs.
    /// - Returns: the item when it was decoded whole.
    @discardableResult
    public static func add(_ job: Job, baseURL: String?, to writer: ManifestWriter, decodingWhole: Bool = false) throws -> Item? {
        if baseURL == nil, !decodingWhole, let result = job.result, let counted = try? JSONDecoder().decode(CountedItem.self, from: result) {
            try writer.add(encoded: result, status: counted.status, attachmentBytes: counted.attachments.reduce(0) { $0 + $1.bytes })
            return nil
        }
        let (item, stored) = decoded(job, baseURL: baseURL)
        if baseURL == nil, stored, let result = job.result {
            try writer.add(encoded: result, status: item.status, attachmentBytes: item.attachments.reduce(0) { $0 + $1.bytes })
        } else {
            try writer.add(item)
        }
        return item
    }

    /// What the manifest's summary counts of an item.
    struct CountedItem: Decodable {
        struct Counted: Decodable { var bytes: Int }
        var status: Item.Status
        var attachments: [Counted]
    }

    /// Streams a campaign's manifest from the queue into `writer`, a page of jobs at a time:
    /// memory does not grow with the campaign.
    /// - Returns: the summary.
    public static func write(
        campaign: String, from queue: any JobQueue, baseURL: String?, into writer: ManifestWriter
    ) async throws -> Manifest.Summary {
        do {
            try await queue.forEachPage(campaign: campaign) { page in
                for job in page { try add(job, baseURL: baseURL, to: writer) }
            }
        } catch {
            writer.discard()
            throw error
        }
        return try writer.finish()
    }

    /// The item of a job without a result.
    static func placeholder(for job: Job) -> Item {
        switch job.state {
        case .dead:
            let message = job.lastError?.message ?? "the job ran out of attempts"
            // A lease that expired or a run that ended while holding the job: the process working
            // on it died (a crash, a kill, out of memory) or stopped answering, on every attempt.
            if [JobStateMachine.leaseExpiredCode, JobStateMachine.ownerGoneCode].contains(job.lastError?.code) {
                return .failed(
                    EscapedPath(jobSource: job.source),
                    error: ItemError(
                        .workerCrashed, "the process working on it ended without a result on all \(job.attempts) attempts; last: \(message)"))
            }
            let code = job.lastError.map { ErrorCode($0.code) } ?? .internalError
            return .failed(EscapedPath(jobSource: job.source), error: ItemError(code, "\(message) (gave up after \(job.attempts) attempts)"))
        case .succeeded, .failed:
            return .failed(EscapedPath(jobSource: job.source), error: ItemError(.internalError, "the job finished without a readable result"))
        default:
            let detail = job.lastError.map { "; last error: \($0.code): \($0.message)" } ?? ""
            return .failed(
                EscapedPath(jobSource: job.source),
                error: ItemError(.notProcessed, "the job is \(job.state.rawValue) (attempt \(job.attempts) of \(job.maxAttempts))\(detail)"))
        }
    }

    /// The manifest of `jobs` (their profile: the first job's, else the default).
    public static func manifest(from jobs: [Job], baseURL: String?) -> Manifest {
        let profile = jobs.first.flatMap { try? ProfileKey.decode($0.profile) } ?? .default
        return Manifest(profile: profile, items: items(from: jobs, baseURL: baseURL))
    }
}
