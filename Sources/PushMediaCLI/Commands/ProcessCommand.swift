import ArgumentParser
import Foundation
import PushMedia
import PushMediaModel
import PushMediaObjectStore
import PushMediaQueue
import PushMediaWorker

/// `pushmedia process <input-dir> --out <dir>`.
extension CropStrategy: ExpressibleByArgument {}
extension OutputLayout: ExpressibleByArgument {}

struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process every file of a folder; write the outputs, manifest and preview.",
        usage: """
            pushmedia process <input-directory> --out <dir> [--base-url <url>]
                     [--profile <file>] [--crop <strategy>] [--jobs <n>] [--json]
            """,
        discussion: """
            The folder goes through an embedded queue in OUT/.pushmedia/queue.sqlite: \
            interrupted and run again, it resumes where it stopped without redoing \
            finished files. Ctrl-C or SIGTERM gives the items in progress back (exit 130 \
            or 143); a kill -9 or a crash counts their attempt, and a file that crashes \
            every run ends failed (worker_crashed) after 3 attempts.

            Progress goes to standard error: a bar on a terminal, else one line per file. \
            With --json, standard output is NDJSON: one "item" event per file as it \
            finishes, then one "summary" event (docs/events.schema.json).

            Exit status: 0 when every item is ok, 1 when some failed (the manifest is \
            still complete), 2 on usage errors and when the run could not finish (an \
            output or state folder that cannot be written, full or busy: no manifest), \
            130/143 when stopped by SIGINT/SIGTERM.
            """
    )

    @Argument(help: "Folder of campaign media (recursive; hidden files are skipped).")
    var inputDirectory: String

    @Option(name: .long, help: "Output folder or s3://BUCKET/PREFIX (default: $PUSHMEDIA_OUT).")
    var out: String?

    @Option(name: .long, help: "With an s3:// --out: the embedded queue's folder (default: $PUSHMEDIA_STATE).")
    var state: String?

    @OptionGroup var published: BaseURLOption

    @OptionGroup var profileFile: ProfileOption

    @Option(name: .long, help: "How the subject is found: smart (faces, else attention; the default), attention, centre or entropy.")
    var crop: CropStrategy?

    @Option(name: .long, help: "Files processed at once (default: $PUSHMEDIA_CONCURRENCY, else the cores).")
    var jobs: Int?

    @Flag(name: .long, help: "Stream NDJSON events (one per file, then a summary) on standard output.")
    var json = false

    @Option(name: .long, help: "Output files side by side (flat) or in subfolders by hash (sharded); default: sharded above 1000 files.")
    var layout: OutputLayout?

    @OptionGroup var isolation: ItemIsolationOptions

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging()
        let out = try Setting.required(self.out, Setting.out, flagName: "--out")
        let jobs = try Setting.int(jobs, Setting.concurrency, flagName: "--jobs", default: ProcessInfo.processInfo.activeProcessorCount)
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        let baseURL = try published.resolve()
        var profile = try profileFile.resolve()
        if let crop { profile.crop = crop }
        // Each item's media work runs in a child process: a crash costs that item's attempt.
        // (Made before the output is: a limit too low to work is refused first.)
        let isolation = try self.isolation.pool(logger: logger)
        let inputURL = URL(fileURLWithPath: inputDirectory)
        // A bucket destination keeps only the embedded queue on local disk, in the state folder.
        var bucket: BucketOutput?
        let outURL: URL
        switch try await OpenedOutput.open(out, logger: logger) {
        case .folder(let folder):
            if let overlap = OutputPlacement.overlap(input: inputURL, output: folder) {
                throw ValidationError(OutputPlacement.message(overlap, input: inputURL, output: folder, inputName: "the input folder"))
            }
            outURL = folder
        case .bucket(let opened):
            bucket = opened
            outURL = OpenedOutput.stateDirectory(state, for: opened.location, environment: ProcessInfo.processInfo.environment)
        }
        let shownOut = bucket?.location.description ?? outURL.path
        // The item processes (or, --in-process, libvips and the face model here) start while the
        // queue is set up (docs/benchmarks/start-up.md); the command waits for that before it
        // returns, so nothing is mid-start at exit.
        let preparing = DispatchGroup()
        do {
            let count = try InputScanner.count(in: inputURL, excluding: [outURL])
            if let isolation, count > 0 {
                preparing.enter()
                Task {
                    await isolation.start(min(jobs, count))
                    preparing.leave()
                }
            } else if count > 0 {
                ItemProcessor.prepare(for: profile, in: preparing, hooks: CommandHooks.items)
            }
        } catch {
            throw ValidationError("\(error)")
        }

        var batch = QueuedBatch(
            inputDirectory: inputURL, outputDirectory: outURL, profile: profile, concurrency: jobs, baseURL: baseURL, logger: logger)
        if let bucket { (batch.bucket, batch.stateDirectory) = (bucket, outURL) }
        batch.isolation = isolation
        batch.layout = layout
        batch.hooks = CommandHooks.items
        let reporter = ProgressReporter(interactive: isatty(STDERR_FILENO) == 1)
        let events = json ? EventWriter() : nil
        let result: QueuedBatch.Result
        let running = Task { [batch] in
            try await batch.run { event in
                if case .item(let item) = event { reporter.report(item) }
                events?.write(event)
            }
        }
        // Ctrl-C or SIGTERM cancels the run: the jobs in progress go back to the queue uncounted
        // (a run killed outright costs their attempts, docs/queue.md), and the command ends.
        let interruption = Interruption { _ in running.cancel() }
        do {
            result = try await running.value
            await preparing.finished()
            await isolation?.close()
        } catch {
            if let signal = interruption.signal {
                reporter.finish()
                printError("\(Interruption.name(signal)): stopped; the items in progress were given back, and running the same command again resumes")
                throw ExitCode(128 + signal)
            }
            await preparing.finished()
            await isolation?.close()
            reporter.finish()
            if let failure = error as? StorageFailure {
                printError(
                    "error: \(failure); the run stopped and the items in progress were given back: "
                        + "free space (or fix the folder) and run the same command again to resume")
            } else {
                printError("error: cannot process into \(shownOut): \(error)")
            }
            throw ExitCode(2)
        }
        reporter.finish()

        let summary = result.summary
        if !json {
            print(
                "\(summary.total) items: \(summary.ok) ok, \(summary.failed) failed; "
                    + "\(formatBytes(summary.outputBytes)) of attachments in \(summary.outputDirectory)")
            print("manifest: \(summary.manifest) (one item a line: \(summary.ndjson))")
            print("preview:  \(summary.preview)")
            if summary.removedFiles > 0 {
                let plural = summary.removedFiles == 1 ? "" : "s"
                print("removed:  \(summary.removedFiles) output file\(plural) this campaign stored that its manifest no longer names")
            }
            if baseURL != nil { print("verify:   \(VerifyCommand.suggestion(manifest: summary.ndjson))") }
            for item in result.failed {
                let line = "  failed \(item.source): \(item.error?.code.rawValue ?? "?"): \(item.error?.message ?? "")"
                print(TerminalText.escaped(line))
            }
            if summary.failed > result.failed.count {
                print("  … and \(summary.failed - result.failed.count) more failed: see the manifest")
            }
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}

/// Writes batch events to standard output as NDJSON, one whole line at a time.
final class EventWriter: @unchecked Sendable {
    private let lock = NSLock()

    func write(_ event: BatchEvent) {
        guard let line = try? event.jsonLine() else { return }
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

extension DispatchGroup {
    /// Returns once every block of the group has run (without blocking a thread).
    func finished() async {
        await withCheckedContinuation { continuation in notify(queue: .global()) { continuation.resume() } }
    }
}
