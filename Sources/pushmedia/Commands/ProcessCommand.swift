import ArgumentParser
import Foundation
import PushMedia
import PushMediaModel
import PushMediaObjectStore
import PushMediaPreview
import PushMediaWorker

/// `pushmedia process <input-dir> --out <dir>`.
extension CropStrategy: ExpressibleByArgument {}

struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Process every file of a folder and write the outputs and manifest.json.",
        discussion: """
            The folder goes through an embedded queue in OUT/.pushmedia/queue.sqlite: interrupted             (Ctrl-C, kill -9) and run again, it resumes where it stopped without redoing finished files.             Exit status: 0 when every item is ok, 1 when some failed (the manifest is still complete),             2 on usage errors.
            """
    )

    @Argument(help: "Folder of campaign media (searched recursively; hidden files are skipped).")
    var inputDirectory: String

    @Option(name: .long, help: "Output folder, or s3://BUCKET/PREFIX, for the files and manifest.json (default: $PUSHMEDIA_OUT).")
    var out: String?

    @Option(name: .long, help: "With --out s3://…: folder of the embedded queue (default: $PUSHMEDIA_STATE, else $XDG_STATE_HOME/pushmedia/s3/BUCKET/PREFIX).")
    var state: String?

    @Option(name: .long, help: "Absolute https URL the output folder will be served from; gives each attachment a url (default: $PUSHMEDIA_BASE_URL).")
    var baseURL: String?

    @Option(name: .long, help: "Profile file (JSON or YAML) overriding the built-in defaults (default: $PUSHMEDIA_PROFILE).")
    var profile: String?

    @Option(name: .long, help: "How the subject is found: attention, centre or entropy (overrides the profile).")
    var crop: CropStrategy?

    @Option(name: .long, help: "Files processed at once (default: $PUSHMEDIA_CONCURRENCY, else the number of cores).")
    var jobs: Int?

    @Flag(name: .long, help: "Print the summary as JSON on standard output.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let logger = global.bootstrapLogging()
        let out = try Setting.required(self.out, Setting.out, flagName: "--out")
        let jobs = try Setting.int(jobs, Setting.concurrency, flagName: "--jobs", default: ProcessInfo.processInfo.activeProcessorCount)
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        let baseURL = try Setting.baseURL(baseURL)
        var profile = try Setting.profile(self.profile)
        if let crop { profile.crop = crop }
        let inputURL = URL(fileURLWithPath: inputDirectory)
        // A bucket destination keeps only the embedded queue on local disk, in the state folder.
        var bucket: BucketOutput?
        let outURL: URL
        switch try await OpenedOutput.open(out, logger: logger) {
        case .folder(let folder): outURL = folder
        case .bucket(let opened):
            bucket = opened
            outURL = OpenedOutput.stateDirectory(state, for: opened.location, environment: ProcessInfo.processInfo.environment)
        }
        let shownOut = bucket?.location.description ?? outURL.path
        let total: Int
        do {
            total = try InputScanner.files(in: inputURL, excluding: [outURL]).count
        } catch {
            throw ValidationError("\(error)")
        }

        var batch = QueuedBatch(
            inputDirectory: inputURL, outputDirectory: outURL, profile: profile, concurrency: jobs, baseURL: baseURL, logger: logger)
        if let bucket { (batch.bucket, batch.stateDirectory) = (bucket, outURL) }
        let reporter = ProgressReporter(total: total, interactive: isatty(STDERR_FILENO) == 1, jsonMode: json)
        let manifest: Manifest
        do {
            manifest = try await batch.run { item, done, total in
                reporter.report(item, done: done, total: total)
            }
        } catch {
            reporter.finish()
            printError("error: cannot process into \(shownOut): \(error)")
            throw ExitCode(1)
        }
        reporter.finish()

        // The review page next to the manifest.
        let previewURL = outURL.appendingPathComponent("preview.html")
        let previewPath = bucket?.location.uri("preview.html") ?? previewURL.path
        do {
            let html = PreviewRenderer.render(manifest: manifest, pageDirectory: outURL, manifestDirectory: outURL)
            if let bucket {
                try await bucket.put(Data(html.utf8), name: "preview.html", contentType: "text/html; charset=utf-8")
            } else {
                try OutputStore.writeAtomically(Data(html.utf8), to: previewURL)
            }
        } catch {
            printError("error: cannot write \(previewPath): \(error)")
            throw ExitCode(1)
        }

        let manifestPath = bucket?.location.uri(BatchProcessor.manifestName) ?? outURL.appendingPathComponent(BatchProcessor.manifestName).path
        let summary = manifest.summary
        if json {
            let report = RunReport(
                manifest: manifestPath, preview: previewPath, outputDirectory: shownOut, total: summary.total, ok: summary.ok,
                failed: summary.failed, outputBytes: summary.outputBytes)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(
                "\(summary.total) items: \(summary.ok) ok, \(summary.failed) failed; "
                    + "\(formatBytes(summary.outputBytes)) of attachments in \(shownOut)")
            print("manifest: \(manifestPath)")
            print("preview:  \(previewPath)")
            for item in manifest.items where item.status == .failed {
                print("  failed \(item.source): \(item.error?.code.rawValue ?? "?"): \(item.error?.message ?? "")")
            }
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }

    struct RunReport: Encodable {
        var manifest: String
        var preview: String
        var outputDirectory: String
        var total: Int
        var ok: Int
        var failed: Int
        var outputBytes: Int
    }
}
