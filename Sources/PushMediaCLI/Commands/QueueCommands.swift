import ArgumentParser
import Foundation
import Logging
import PushMedia
import PushMediaModel
import PushMediaQueue
import PushMediaWorker

/// Opens the queue a command names: a bad URL is a usage error (exit 2), a queue that cannot be
/// reached a runtime error (exit 1).
func openQueue(_ option: QueueOption, logger: Logger) async throws -> any JobQueue {
    let url = try option.url()
    let parsed: QueueURL
    do {
        parsed = try QueueURL(parsing: url)
    } catch {
        throw ValidationError("\(error)")
    }
    do {
        return try await JobQueueFactory.open(parsed, logger: logger)
    } catch {
        printError("error: cannot open the queue: \(error)")
        throw ExitCode(1)
    }
}

/// Opens the queue, runs `body` on it and closes it on every path. A failure inside `body` is
/// printed as `error: <doing>: …` with exit status 1.
func withQueue<T>(_ option: QueueOption, logger: Logger, doing: String, _ body: (any JobQueue) async throws -> T)
    async throws -> T
{
    let queue = try await openQueue(option, logger: logger)
    do {
        let value = try await body(queue)
        await queue.close()
        return value
    } catch let exit as ExitCode {
        await queue.close()
        throw exit
    } catch {
        await queue.close()
        printError("error: \(doing): \(error)")
        throw ExitCode(1)
    }
}

/// `pushmedia enqueue`: puts media jobs on the queue (idempotent).
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Put files, folders (recursively) and http(s) URLs on the queue as jobs of a campaign.",
        usage: """
            pushmedia enqueue --queue <url> --campaign <id> [--root <dir>]
                     [--profile <file>] [--max-attempts <n>] [--json] <sources> ...
            """,
        discussion: "Enqueueing the same campaign + source + profile again returns the existing job, so re-running is safe."
    )

    @OptionGroup var queue: QueueOption

    @Option(name: .long, help: "Campaign the jobs belong to.")
    var campaign: String

    @Option(
        name: .long, help: "Input root: paths are stored relative to it and must be under it (default: $PUSHMEDIA_ROOT, else the current folder).")
    var root: String?

    @OptionGroup var profile: ProfileOption

    @Option(name: .long, help: "Attempts before a job is dead (default 5).")
    var maxAttempts: Int?

    @Flag(name: .long, help: "Print the jobs as JSON.")
    var json = false

    @Argument(help: "Files, folders or http(s) URLs.")
    var sources: [String]

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !campaign.isEmpty else { throw ValidationError("--campaign must not be empty") }
        if let maxAttempts, maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        guard !sources.isEmpty else { throw ValidationError("give at least one file, folder or URL") }
    }

    func run() async throws {
        let logger = global.bootstrapLogging()
        let profileKey = try ProfileKey.encode(try profile.resolve())
        let rootURL = URL(fileURLWithPath: Setting.value(root, Setting.root) ?? FileManager.default.currentDirectoryPath)
        let checked: [CampaignSources.Source]
        do {
            checked = try CampaignSources.checked(sources, root: rootURL)
        } catch {
            throw ValidationError("\(error)")
        }
        // A chunk of up to 1,000 jobs per transaction, as the folders are walked: memory holds
        // one chunk whatever the folder's size. Enqueueing again is safe, so a run that stops
        // half way is finished by running it again.
        let rowEncoder = JSONEncoder()
        rowEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let (total, fresh) = try await withQueue(queue, logger: logger, doing: "cannot enqueue") { queue -> (Int, Int) in
            var total = 0
            var fresh = 0
            try await CampaignSources.forEachChunk(of: checked, campaign: campaign, profile: profileKey) { chunk in
                let jobs =
                    maxAttempts.map { attempts in
                        chunk.map {
                            var job = $0
                            job.maxAttempts = attempts
                            return job
                        }
                    } ?? chunk
                let enqueued = try await queue.enqueue(jobs)
                if json {
                    // One JSON array, a job a line, printed as it goes.
                    for job in enqueued {
                        print((total == 0 ? "[\n  " : ",\n  ") + String(decoding: try rowEncoder.encode(JobRow(job)), as: UTF8.self), terminator: "")
                        total += 1
                    }
                } else {
                    total += enqueued.count
                }
                fresh += enqueued.filter { $0.state == .queued && $0.attempts == 0 }.count
            }
            return (total, fresh)
        }
        if json {
            print(total == 0 ? "[]" : "\n]")
        } else {
            print("campaign \(campaign): \(total) job\(total == 1 ? "" : "s") (\(fresh) waiting to run, \(total - fresh) already known)")
        }
    }
}

/// `pushmedia status`: counts by state and dead jobs.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show job counts, throughput and time left per campaign, and dead jobs.",
        usage: "pushmedia status --queue <url> [--campaign <id>] [--json]")

    @OptionGroup var queue: QueueOption

    @Option(name: .long, help: "Only this campaign.")
    var campaign: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging()
        let (campaigns, dead) = try await withQueue(queue, logger: logger, doing: "cannot read the queue") { queue in
            let campaigns =
                if let campaign {
                    [CampaignJobCounts(campaign: campaign, counts: try await queue.counts(campaign: campaign))]
                } else {
                    try await queue.countsByCampaign()
                }
            var rates: [String: CampaignThroughput] = [:]
            let now = Date()
            // Counted by the queue: no job is read, whatever the campaign's size.
            for entry in campaigns {
                let remaining = JobState.allCases.filter { !$0.isTerminal }.reduce(0) { $0 + entry.counts[$1] }
                let finishes = try await queue.finishes(campaign: entry.campaign, since: now.addingTimeInterval(-CampaignThroughput.window))
                rates[entry.campaign] = .estimate(finishes: finishes, remaining: remaining, now: now)
            }
            return (campaigns.map { ($0, rates[$0.campaign]!) }, try await queue.deadJobs(campaign: campaign, limit: Self.deadListed))
        }
        let deadTotal = campaigns.reduce(0) { $0 + $1.0.counts[.dead] }
        if json {
            let report = StatusReport(
                campaigns: campaigns.map { StatusReport.Campaign(campaign: $0.0.campaign, counts: $0.0.counts, throughput: $0.1) },
                dead: dead.map(JobRow.init), deadTotal: deadTotal)
            print(String(decoding: try jsonEncoder().encode(report), as: UTF8.self))
            return
        }
        if campaigns.isEmpty { print("no jobs") }
        for (entry, throughput) in campaigns {
            let c = entry.counts
            print(
                "\(entry.campaign): \(c.total) jobs: \(c[.queued]) queued, \(c[.running]) running, \(c[.retrying]) retrying, "
                    + "\(c[.succeeded]) succeeded, \(c[.failed]) failed, \(c[.dead]) dead; \(throughput.description)")
        }
        for job in dead {
            let line = "  dead \(job.campaign) \(job.source): \(job.lastError?.description ?? "no error recorded") (\(job.attempts) attempts)"
            print(TerminalText.escaped(line))
        }
        if deadTotal > dead.count {
            print("  … and \(deadTotal - dead.count) more dead jobs (the manifest lists every one: pushmedia manifest)")
        }
    }

    /// Dead jobs listed at most: the counts say how many there are, the manifest lists them all.
    static let deadListed = 100

    struct StatusReport: Encodable {
        struct Campaign: Encodable {
            var campaign: String
            var counts: [String: Int]
            var total: Int
            /// Jobs finished per minute over the last 10 minutes, when known.
            var perMinute: Double?
            /// Estimated seconds until every job is finished, when known.
            var secondsLeft: Double?

            init(campaign: String, counts: JobCounts, throughput: CampaignThroughput) {
                self.campaign = campaign
                self.counts = Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, counts[$0]) })
                total = counts.total
                perMinute = throughput.perMinute.map { ($0 * 10).rounded() / 10 }
                secondsLeft = throughput.secondsLeft.map { $0.rounded() }
            }
        }
        var campaigns: [Campaign]
        /// The first ``StatusCommand/deadListed`` dead jobs.
        var dead: [JobRow]
        /// How many jobs are dead.
        var deadTotal: Int
    }
}

/// `pushmedia manifest`: the campaign's manifest from the job results.
struct ManifestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Assemble a campaign's manifest.json from its job results.",
        usage: """
            pushmedia manifest --queue <url> --campaign <id> --out <file>
                     [--base-url <url>]
            """,
        discussion: "Exit status: 0 when every item is ok, 1 when some failed or are not processed yet (listed as not_processed), 2 on usage errors."
    )

    @OptionGroup var queue: QueueOption

    @Option(name: .long, help: "Campaign.")
    var campaign: String

    @Option(name: .long, help: "Manifest file to write (its NDJSON form goes next to it, .ndjson).")
    var out: String

    @Flag(inversion: .prefixedNo, help: "Also write the NDJSON form (one item a line).")
    var ndjson = true

    @OptionGroup var published: BaseURLOption

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging()
        let baseURL = try published.resolve()
        // Streamed from the queue a page at a time into both forms: memory does not grow with
        // the campaign. Its profile: the first job's, else the default.
        let outURL = URL(fileURLWithPath: out)
        let s = try await withQueue(queue, logger: logger, doing: "cannot read the queue") { queue -> Manifest.Summary in
            let first = try await queue.jobs(campaign: campaign, after: nil, limit: 1)
            guard let job = first.first else {
                printError("error: campaign \(campaign) has no jobs")
                throw ExitCode(1)
            }
            let writer: ManifestWriter
            do {
                writer = try ManifestWriter(
                    directory: outURL.deletingLastPathComponent(), profile: (try? ProfileKey.decode(job.profile)) ?? .default,
                    jsonName: outURL.lastPathComponent, writesNDJSON: ndjson)
            } catch {
                printError("error: cannot write \(out): \(error)")
                throw ExitCode(1)
            }
            return try await ManifestAssembler.write(campaign: campaign, from: queue, baseURL: baseURL, into: writer)
        }
        let lines = ndjson ? " (one item a line: \(outURL.deletingPathExtension().appendingPathExtension("ndjson").path))" : ""
        print("\(s.total) items: \(s.ok) ok, \(s.failed) failed; manifest: \(out)\(lines)")
        if baseURL != nil { print("verify: \(VerifyCommand.suggestion(manifest: out))") }
        if s.failed > 0 { throw ExitCode(1) }
    }
}

/// `pushmedia retry`: dead jobs back to queued.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Re-queue a campaign's dead jobs (attempts reset).",
        usage: "pushmedia retry --queue <url> --campaign <id>")

    @OptionGroup var queue: QueueOption

    @Option(name: .long, help: "Campaign.")
    var campaign: String

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging()
        let count = try await withQueue(queue, logger: logger, doing: "cannot re-queue") { try await $0.retryDead(campaign: campaign) }
        print("campaign \(campaign): \(count) dead job\(count == 1 ? "" : "s") re-queued")
    }
}

/// A job as commands print it.
struct JobRow: Encodable {
    var id: JobID
    var campaign: String
    var source: String
    var state: String
    var attempts: Int
    var maxAttempts: Int
    var lastError: JobError?

    init(_ job: Job) {
        id = job.id
        campaign = job.campaign
        source = job.source
        state = job.state.rawValue
        attempts = job.attempts
        maxAttempts = job.maxAttempts
        lastError = job.lastError
    }
}

func jsonEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return encoder
}
