import ArgumentParser
import Foundation
import Logging
import PushMedia
import PushMediaModel
import PushMediaWorker

/// `pushmedia`: prepares campaign media for rich push notifications.
struct PushMediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushmedia",
        abstract: "Prepare campaign media for rich push notifications.",
        discussion: """
            Makes a square thumbnail and a 2:1 expanded variant of every image, the clipping rect \
            that maps one onto the other, and a manifest a payload builder turns into APNs and \
            vendor payloads.
            """,
        version: PushMediaVersion.string,
        subcommands: [
            ProcessCommand.self, EnqueueCommand.self, WorkerCommand.self, StatusCommand.self, ManifestCommand.self,
            RetryCommand.self, ProbeCommand.self, PayloadCommand.self, PreviewCommand.self, VerifyCommand.self, HealthcheckCommand.self,
            VersionCommand.self, ItemProcessCommand.self, ItemForkServerCommand.self,
        ]
    )
}

/// The `pushmedia` command line: parses the arguments, runs the command and exits. Exit codes:
/// 0 all ok, 1 some items failed (the manifest is complete), 2 usage errors and anything that
/// stopped a command from producing its result.
public enum PushMediaMain {
    /// Synchronous, so a command that must fork before any thread exists (the item processes'
    /// fork server) runs before Swift concurrency or Dispatch starts one; the other commands run
    /// in a task. Never returns.
    ///
    /// - Parameter hooks: called at the steps of every item the command runs, in this process
    ///   and in the fork server forked from it (``ItemHooks``). `pushmedia` passes none; the
    ///   tests' `pushmedia-testing` passes its gates, and item processes it starts anew (its own
    ///   binary again) make theirs the same way.
    public static func main(hooks: (any ItemHooks)? = nil) -> Never {
        ProcessControl.limitMemoryArenas()
        let command: ParsableCommand
        do {
            command = try PushMediaCommand.parseAsRoot()
        } catch {
            fail(error)
        }
        // `process` and `worker` fork their item processes' fork server now, while this
        // process has one thread (docs/security.md#crash-containment).
        if let contained = command as? ContainedItemsCommand, let memoryLimit = contained.isolation.earlyForkServerMemoryLimit {
            let global = contained.global
            ItemProcessServer.forkServerEarly(memoryLimitMB: memoryLimit, hooks: hooks) { global.bootstrapLogging() }
        }
        CommandHooks.$items.withValue(hooks) {
            guard command is AsyncParsableCommand else {
                var command = command
                do {
                    try command.run()
                } catch {
                    fail(error)
                }
                exit(0)
            }
            let box = AsyncCommandBox(command as? AsyncParsableCommand)
            // The task inherits the hooks.
            Task {
                do {
                    try await box.run()
                } catch {
                    fail(error)
                }
                exit(0)
            }
        }
        dispatchMain()
    }

    /// The parsed command, handed to the task that runs it (only that task touches it).
    final class AsyncCommandBox: @unchecked Sendable {
        private var command: AsyncParsableCommand?

        init(_ command: AsyncParsableCommand?) {
            self.command = command
        }

        func run() async throws {
            try await command?.run()
        }
    }

    /// 2: usage errors, and any error that stopped a command before its result (a folder that
    /// cannot be written, a queue that cannot be opened). 1 is only ever thrown on purpose
    /// (`ExitCode(1)`: some items failed, the manifest is complete).
    static func fail(_ error: Error) -> Never {
        let code = PushMediaCommand.exitCode(for: error)
        if code == .validationFailure || (code == .failure && !(error is ExitCode)) {
            let message = TerminalText.escaped(PushMediaCommand.fullMessage(for: error), keepingLineFeeds: true)
            FileHandle.standardError.write(Data((message + "\n").utf8))
            exit(2)
        }
        PushMediaCommand.exit(withError: error)
    }
}

/// How `process` and `worker` run items: in child processes (crash containment) with a memory
/// limit each, or on threads of the command itself.
struct ItemIsolationOptions: ParsableArguments {
    @Flag(name: .long, help: "Run each item inside this process instead of a child process: no crash containment (for a debugger).")
    var inProcess = false

    // Unconditional: `--item-memory-limit -1` is a value to refuse with its reason, not a
    // missing one.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Address space each item process may grow by once started, in MB; past it allocations fail and only that item's attempt is lost (default: $PUSHMEDIA_ITEM_MEMORY_LIMIT_MB, else 4096; 0: no limit; \(ItemProcessServer.minimumMemoryLimitMB) to \(ItemProcessServer.maximumMemoryLimitMB)).",
            valueName: "MB")
    )
    var itemMemoryLimit: Int?

    /// The item memory limit in MB (`--item-memory-limit`, else PUSHMEDIA_ITEM_MEMORY_LIMIT_MB,
    /// else 4096): 0 (none) or at least what an item process needs to work, else a usage error.
    func memoryLimit() throws -> Int {
        let megabytes = try Setting.int(itemMemoryLimit, Setting.itemMemoryLimit, flagName: "--item-memory-limit", default: 4096)
        let (minimum, maximum) = (ItemProcessServer.minimumMemoryLimitMB, ItemProcessServer.maximumMemoryLimitMB)
        guard megabytes == 0 || megabytes >= minimum else {
            throw ValidationError(
                "--item-memory-limit must be 0 (no limit) or at least \(minimum) MB, what an item process needs to grow by to process "
                    + "a movie, with a margin (docs/security.md#crash-containment), got \(megabytes)")
        }
        guard megabytes <= maximum else {
            throw ValidationError(
                "--item-memory-limit must be at most \(maximum) MB (128 TiB, the address space a process can have), got \(megabytes): "
                    + "give 0 for no limit")
        }
        return megabytes
    }

    /// The pool of item processes, with the command's log level and priority; nil with
    /// `--in-process`.
    func pool(logger: Logger) throws -> ItemProcessPool? {
        let megabytes = try memoryLimit()
        guard !inProcess else { return nil }
        // Children started anew (and a fork server started anew) take this process's nice value
        // at their start: they are started from one of its threads, whose own may differ.
        var arguments = ["item-process", "--log-level", logger.logLevel.rawValue, "--memory-limit", "\(megabytes)"]
        if let nice = ProcessControl.operatorPriority { arguments += ["--nice", "\(nice)"] }
        // PUSHMEDIA_ITEM_FORK_SERVER=0 starts each item process anew instead of forking it
        // (docs/security.md#crash-containment): for comparing, or a kernel without subreapers.
        return ItemProcessPool(
            arguments: arguments, forkServer: ProcessInfo.processInfo.environment["PUSHMEDIA_ITEM_FORK_SERVER"] != "0", logger: logger)
    }
}

/// The hooks ``PushMediaMain/main(hooks:)`` was given (nil in `pushmedia`): each command reads
/// them once and hands them on explicitly, through the options of what it runs.
enum CommandHooks {
    @TaskLocal static var items: (any ItemHooks)?
}

/// A command whose items run in item processes (`process`, `worker`).
protocol ContainedItemsCommand {
    var isolation: ItemIsolationOptions { get }
    var global: GlobalOptions { get }
}

extension ProcessCommand: ContainedItemsCommand {}
extension WorkerCommand: ContainedItemsCommand {}

extension ItemIsolationOptions {
    /// The item memory limit for a fork server forked in `main`; nil when items run in this
    /// process, the fork server is turned off (`PUSHMEDIA_ITEM_FORK_SERVER=0`) or the limit is
    /// not valid (the command then says so).
    var earlyForkServerMemoryLimit: Int? {
        guard !inProcess, ProcessInfo.processInfo.environment["PUSHMEDIA_ITEM_FORK_SERVER"] != "0" else { return nil }
        return try? memoryLimit()
    }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Log level: trace, debug, info, notice, warning, error or critical (default: info for worker, else warning).")
    var logLevel: Logger.Level?

    /// Logs go to standard error, a line an entry, escaped (``EscapedLogStream``). Below
    /// `warning`, nothing needs an operator: a worker logs each finished job at `info`, so that
    /// is its default; the other commands show their own output.
    func bootstrapLogging(default defaultLevel: Logger.Level = .warning) -> Logger {
        let level = logLevel ?? defaultLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler(label: label, stream: EscapedLogStream())
            handler.logLevel = level
            return handler
        }
        return Logger(label: "pushmedia")
    }
}

// swift-format-ignore: AvoidRetroactiveConformances
// Log levels are flags (`--log-level`); neither swift-log nor swift-argument-parser declares it.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Writes to standard error, with every control character but LF escaped (``TerminalText``):
/// what a message quotes (a path, a library's error) cannot send the terminal a sequence. A
/// message that quotes a name escapes the name itself too, so that it cannot begin a line.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalText.escaped(text, keepingLineFeeds: true) + "\n").utf8))
}

/// Standard error for the log handler: each entry (one write, ending in LF) with every control
/// character in it escaped, so a name or message in a log line cannot end the line and forge
/// another, nor reach the terminal as a sequence.
struct EscapedLogStream: TextOutputStream, Sendable {
    mutating func write(_ string: String) {
        var scalars = string.unicodeScalars
        let ended = scalars.last == "\n"
        if ended { scalars.removeLast() }
        let line = TerminalText.escaped(String(scalars)) + (ended ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Reads a manifest for a command: `manifest.json`, or the items of `manifest.ndjson` (under the
/// built-in profile, which the NDJSON form does not carry). A missing or foreign file, or an
/// item with a value no run writes, is an error on standard error and exit status 1.
func readManifest(_ path: String) throws -> Manifest {
    let url = URL(fileURLWithPath: path)
    if url.pathExtension.lowercased() == "ndjson" {
        guard FileManager.default.isReadableFile(atPath: path) else {
            printError("error: cannot read manifest \(path)")
            throw ExitCode(1)
        }
        var items: [Item] = []
        do {
            try Manifest.forEachLine(ofNDJSON: url) { item in
                items.append(item)
                return true
            }
        } catch {
            printError("error: \(path) is not a PushMedia manifest: \(error)")
            throw ExitCode(1)
        }
        return Manifest(profile: .default, items: items)
    }
    let data: Data
    do {
        data = try Data(contentsOf: url)
    } catch {
        printError("error: cannot read manifest \(path): \(error.localizedDescription)")
        throw ExitCode(1)
    }
    do {
        return try Manifest.decode(from: data)
    } catch let error as DecodingError {
        printError("error: \(path) is not a PushMedia manifest: \(error.readableDescription(decoding: data))")
        throw ExitCode(1)
    } catch {
        printError("error: \(path) is not a PushMedia manifest: \(error)")
        throw ExitCode(1)
    }
}

/// `12.3 KB`-style sizes (decimal units, as Apple states its limits).
func formatBytes(_ bytes: Int) -> String {
    let units = ["B", "KB", "MB", "GB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
}
