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
    public func process(_ input: InputFile, profile: Profile, outputDirectory: URL, layout: OutputLayout = .flat) async -> Item {
        let request: Data
        do {
            request = try JSONEncoder().encode(ItemRequest(input, profile: profile, outputDirectory: outputDirectory.path, layout: layout))
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

/// One `pushmedia item-process` child and the two pipes to it.
final class ItemProcess: @unchecked Sendable {
    enum Outcome {
        case answered(Data)
        case ended(End)
    }

    /// How a child ended without answering.
    enum End: Equatable {
        case signal(Int32)
        case exit(Int32)
        /// Killed at the item's hard deadline.
        case deadline
        /// Killed at its start deadline: it had not said it is ready.
        case startDeadline
        case brokenStream(String)

        /// The label of `pushmedia_item_crashes_total`.
        var reason: String {
            switch self {
            case .signal(let number): ItemProcess.signalName(number)
            case .exit: "exit"
            case .deadline: "deadline"
            case .startDeadline: "start_deadline"
            case .brokenStream: "broken_stream"
            }
        }

        func itemError(deadline: Duration, startDeadline: Duration = ItemProcessPool.defaultStartDeadline) -> ItemError {
            switch self {
            case .signal(let number):
                ItemError(.workerCrashed, "the item's process was killed by \(ItemProcess.signalName(number)) (signal \(number)) while working on it")
            case .exit(let status):
                ItemError(.workerCrashed, "the item's process exited with status \(status) while working on it")
            case .deadline:
                ItemError(
                    .timeout,
                    "still running at the hard deadline of \(deadline.milliseconds / 1000) s (past the profile's time limits): its process was killed"
                )
            case .startDeadline:
                ItemError(
                    .workerCrashed,
                    "the item's process had not started within \(startDeadline.milliseconds / 1000) s (libvips, the face model, its memory limit): it was killed"
                )
            case .brokenStream(let detail):
                ItemError(.workerCrashed, "the item's process answered with a broken stream: \(detail)")
            }
        }
    }

    private let child: Child
    private let requests: FileHandle
    private let replies: FileHandle
    private let lock = NSLock()
    private var running = false
    private var killedAtDeadline = false
    /// Whether it said it has started (an empty frame before its first answer); only ``run``
    /// touches it, one call at a time.
    private var started = false

    /// Starts `executable arguments` (`pushmedia item-process …`) anew.
    init(executable: URL, arguments: [String]) throws {
        let process = Process()
        let toChild = Pipe()
        let fromChild = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = toChild
        process.standardOutput = fromChild
        process.standardError = FileHandle.standardError
        try process.run()
        child = .started(process)
        requests = toChild.fileHandleForWriting
        replies = fromChild.fileHandleForReading
        // The child's ends belong to the child alone: the end of the stream must mean its end.
        try? toChild.fileHandleForReading.close()
        try? fromChild.fileHandleForWriting.close()
    }

    /// A child forked by the fork server (adopted by this process).
    init(forkedBy server: ItemForkServer) throws {
        let (pid, requests, replies) = try server.spawn()
        child = .forked(ForkedChild(pid: pid))
        self.requests = requests
        self.replies = replies
    }

    /// A child and how to wait for it: one this process started (Foundation's `Process` waits
    /// for it), or one the fork server made and this process adopted (`waitpid`).
    enum Child {
        case started(Process)
        case forked(ForkedChild)

        var pid: Int32 {
            switch self {
            case .started(let process): process.processIdentifier
            case .forked(let child): child.pid
            }
        }
    }

    var pid: Int32 { child.pid }

    private var isRunning: Bool {
        switch child {
        case .started(let process): process.isRunning
        case .forked(let child): !child.hasEnded
        }
    }

    /// How the child ended, once it has (waits).
    private func waitForEnd() -> (signal: Int32?, status: Int32) {
        switch child {
        case .started(let process):
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal ? (process.terminationStatus, 0) : (nil, process.terminationStatus)
        case .forked(let child):
            return child.waitForEnd()
        }
    }

    /// Where the blocking exchanges run: a concurrent queue, whose threads are reused from item
    /// to item. (A thread started per item, with a deadline work item per item, grew the
    /// supervisor by ~45 KB per item: 508 MB after 10,000 items; with this queue and a timer
    /// source it stays flat, docs/benchmarks/catalogue.md.)
    private static let exchanges = DispatchQueue(label: "pushmedia.item-exchanges", attributes: .concurrent)

    /// Sends one request and waits for the answer on a thread of its own (blocking reads), or
    /// for the child's end; kills the child at `deadline`. Before its first answer a child says
    /// it has started: until then `startDeadline` holds instead (the item's own deadline starts
    /// once the child has).
    func run(_ request: Data, startDeadline: Duration, deadline: Duration) async -> Outcome {
        if !started {
            let start = await timed(startDeadline) { [self] in
                if let broken = send(request) { return broken }
                let first = receive()
                if case .answered(let frame) = first, !frame.isEmpty {
                    return ended(brokenStream: "an answer before it said it had started")
                }
                return first
            }
            switch start {
            case .ended(let end): return .ended(end == .deadline ? .startDeadline : end)
            case .answered: started = true
            }
            return await timed(deadline) { [self] in receive() }
        }
        return await timed(deadline) { [self] in send(request) ?? receive() }
    }

    /// Runs `exchange` (blocking) on a thread of ``exchanges`` and kills the child when it has not
    /// returned by `limit` (it then ends `.deadline`).
    private func timed(_ limit: Duration, _ exchange: @escaping @Sendable () -> Outcome) async -> Outcome {
        lock.withLock {
            running = true
            killedAtDeadline = false
        }
        // A timer source, not `asyncAfter`: a cancelled source is released at once, where a
        // cancelled work item stays queued (holding what it captured) until its deadline.
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [self] in
            let kill = lock.withLock { () -> Bool in
                guard running else { return false }
                killedAtDeadline = true
                return true
            }
            if kill { Glibc.kill(pid, SIGKILL) }
        }
        timer.schedule(deadline: .now() + .milliseconds(Int(limit.milliseconds)))
        timer.resume()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            Self.exchanges.async {
                continuation.resume(returning: exchange())
            }
        }
        timer.cancel()
        lock.withLock { running = false }
        return outcome
    }

    /// Writes `request` to the child: nil, or how the child ended when its stream broke.
    private func send(_ request: Data) -> Outcome? {
        do {
            try ItemFrames.write(request, to: requests.fileDescriptor)
            return nil
        } catch {
            return ended(brokenStream: "\(error)")
        }
    }

    /// The next frame from the child, or how it ended.
    private func receive() -> Outcome {
        do {
            if let answer = try ItemFrames.read(from: replies.fileDescriptor) { return .answered(answer) }
        } catch {
            return ended(brokenStream: "\(error)")
        }
        return .ended(end(waitForEnd(), brokenStream: nil))
    }

    /// How the child ended after its stream broke (killed first if it still runs).
    private func ended(brokenStream detail: String) -> Outcome {
        if isRunning { Glibc.kill(pid, SIGKILL) }
        return .ended(end(waitForEnd(), brokenStream: detail))
    }

    private func end(_ ended: (signal: Int32?, status: Int32), brokenStream detail: String?) -> End {
        if lock.withLock({ killedAtDeadline }) { return .deadline }
        if let signal = ended.signal { return .signal(signal) }
        if let detail, ended.status == 0 { return .brokenStream(detail) }
        return .exit(ended.status)
    }

    func close() {
        try? requests.close()
        try? replies.close()
    }

    func waitUntilExit() {
        _ = waitForEnd()
    }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGTRAP: "SIGTRAP"
        case SIGSYS: "SIGSYS"
        case SIGXCPU: "SIGXCPU"
        default: "signal \(number)"
        }
    }
}

/// A child the fork server made, which this process adopted (a child subreaper): waited for with
/// `waitpid`, once.
final class ForkedChild: @unchecked Sendable {
    let pid: pid_t
    private let lock = NSLock()
    private var ended: (signal: Int32?, status: Int32)?

    init(pid: pid_t) {
        self.pid = pid
    }

    /// Whether it was waited for (its pid may then be another process's: never signal it).
    var hasEnded: Bool { lock.withLock { ended != nil } }

    /// Waits for it to end: its signal, or its exit status. Until the fork server's middle
    /// process has exited the child is not yet this process's (`ECHILD`): then it waits a little
    /// and asks again.
    func waitForEnd() -> (signal: Int32?, status: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if let ended { return ended }
        var status: Int32 = 0
        var notYetAdopted = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno == EINTR { continue }
            if errno == ECHILD && notYetAdopted < 500 {
                notYetAdopted += 1
                usleep(10_000)
                continue
            }
            // Not a child of this process after 5 s: say it exited, unknown.
            let result: (signal: Int32?, status: Int32) = (nil, -1)
            ended = result
            return result
        }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS (macros, not visible to Swift).
        let result: (signal: Int32?, status: Int32) = status & 0x7f == 0 ? (nil, (status >> 8) & 0xff) : (status & 0x7f, 0)
        ended = result
        return result
    }
}
