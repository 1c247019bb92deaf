import Foundation
import Logging
import Metrics
import PushMedia
import PushMediaModel

/// Runs each item's media work (read, probe, decode, subject search, encode) in a child process
/// of the same binary (`pushmedia item-process`), so that a decoder that crashes, a C loop that
/// ignores its deadline or a runaway allocation costs that item's attempt, never the batch, the
/// worker or the other items in flight. The queue, the results cache, storage and the manifest
/// stay here, in the supervisor.
///
/// Children are long-lived (started on first use, one per item in flight, reused for the next
/// item), so libvips, FFmpeg and the face model start once per child, not per item. A child
/// that dies while working on an item is replaced; the item fails `worker_crashed` (the signal
/// named), or `timeout` when the supervisor killed it at the item's hard deadline, which no C
/// loop can ignore. Both are transient: the queue tries the item again and counts the attempt.
/// A child that has not started (said it is ready) within ``startDeadline`` of its first item
/// is killed too, and the item fails `worker_crashed`: no start, however stuck, holds an item.
public actor ItemProcessPool {
    private let executable: URL
    private let arguments: [String]
    private let startDeadline: Duration
    private let logger: Logger
    private var idle: [ItemProcess] = []
    /// Forks the children (``ItemForkServer``); nil before the first child, or after it failed
    /// (children are then started anew, each its own `pushmedia item-process`).
    private var forkServer: ItemForkServer?
    private var forkServerFailed: Bool

    /// - Parameters:
    ///   - executable: the `pushmedia` binary (by default this process's own).
    ///   - arguments: what starts an item process (`["item-process", "--log-level", …]`); the
    ///     fork server is started with the same options (`["item-fork-server", "--log-level", …]`).
    ///   - forkServer: whether children are forked by a fork server (the default) rather than
    ///     each started anew.
    ///   - startDeadline: how long a child may take to start, from its first request on
    ///     (``defaultStartDeadline``).
    public init(
        executable: URL = ItemProcessPool.currentExecutable, arguments: [String], forkServer: Bool = true,
        startDeadline: Duration = ItemProcessPool.defaultStartDeadline, logger: Logger
    ) {
        self.executable = executable
        self.arguments = arguments
        self.startDeadline = startDeadline
        self.logger = logger
        forkServerFailed = !forkServer
        // A child that died leaves a pipe whose write would otherwise kill the supervisor.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The running binary.
    public static var currentExecutable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }

    /// The longest a child may take to start (a forked one takes milliseconds; one started anew
    /// links the binary, starts libvips and loads the face model, a second or two on a busy
    /// machine) before it is killed and its first item fails.
    public static let defaultStartDeadline = Duration.seconds(60)

    /// The longest an item may take before its process is killed: past both of the profile's
    /// own time limits (which stop a decode or transcode from inside, with a clean `timeout`),
    /// so only work that ignores them meets it.
    public static func hardDeadline(for profile: Profile) -> Duration {
        let limit = max(profile.limits.timeoutSeconds, profile.limits.mediaTimeoutSeconds)
        return Profile.duration(seconds: limit * 1.25 + 5)
    }

    /// Processes one file in a child process: the item it made, or a failed item saying how the
    /// child ended (never throws).
    public func process(
        _ input: InputFile, profile: Profile, outputDirectory: URL, layout: OutputLayout = .flat, ledger: OutputLedger? = nil
    ) async -> Item {
        let request: Data
        do {
            request = try JSONEncoder().encode(
                ItemRequest(input, profile: profile, outputDirectory: outputDirectory.path, layout: layout, ledger: ledger?.file.path))
        } catch {
            return .failed(input.escapedSource, error: ItemError(.internalError, "cannot encode the item's request: \(error)"))
        }
        let child: ItemProcess
        if let reused = idle.popLast() {
            child = reused
        } else {
            do {
                child = try newChild()
            } catch {
                return .failed(input.escapedSource, error: ItemError(.internalError, "cannot start an item process: \(error)"))
            }
        }
        let deadline = Self.hardDeadline(for: profile)
        switch await child.run(request, startDeadline: startDeadline, deadline: deadline) {
        case .answered(let data):
            idle.append(child)
            do {
                var item = try Item.decode(from: data)
                item.sourcePath = input.escapedSource
                return item
            } catch {
                return .failed(input.escapedSource, error: ItemError(.internalError, "the item process's answer cannot be read: \(error)"))
            }
        case .ended(let end):
            let error = end.itemError(deadline: deadline, startDeadline: startDeadline)
            Counter(label: "pushmedia_item_crashes_total", dimensions: [("reason", end.reason)]).increment()
            logger.error(
                "item process ended while working on an item; it is replaced",
                metadata: ["source": "\(input.source)", "code": "\(error.code)", "reason": "\(end.reason)", "pid": "\(child.pid)"])
            return .failed(input.escapedSource, error: error)
        }
    }

    /// Starts up to `count` children ahead of the first items, so their start-up (libvips, the
    /// face model) overlaps the caller's own set-up. Failures are left to the items.
    public func start(_ count: Int) {
        while idle.count < count, let child = try? newChild() {
            idle.append(child)
        }
    }

    /// A new child: forked by the fork server (started on first use), or, when that cannot be,
    /// started anew.
    private func newChild() throws -> ItemProcess {
        if !forkServerFailed {
            do {
                if forkServer == nil {
                    forkServer =
                        try ItemForkServer.takeEarly()
                        ?? ItemForkServer(executable: executable, arguments: ["item-fork-server"] + arguments.dropFirst())
                }
                if let forkServer { return try ItemProcess(forkedBy: forkServer) }
            } catch {
                logger.warning("item processes are started anew, without the fork server", metadata: ["error": "\(error)"])
                forkServerFailed = true
                if let server = forkServer {
                    forkServer = nil
                    Thread.detachNewThread { server.close() }
                }
            }
        }
        return try ItemProcess(executable: executable, arguments: arguments)
    }

    /// Ends the idle children and waits for them to exit (their standard input closes), so
    /// their CPU time is this process's in the operating system's accounting.
    public func close() async {
        let children = idle
        idle.removeAll()
        let server = forkServer
        forkServer = nil
        for child in children { child.close() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for child in children { child.waitUntilExit() }
                server?.close()
                continuation.resume()
            }
        }
    }
}
