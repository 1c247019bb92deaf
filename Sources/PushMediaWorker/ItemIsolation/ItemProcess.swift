import Foundation
import PushMediaModel

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
