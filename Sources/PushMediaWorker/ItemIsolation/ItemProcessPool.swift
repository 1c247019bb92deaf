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
public actor ItemProcessPool {
    private let executable: URL
    private let arguments: [String]
    private let logger: Logger
    private var idle: [ItemProcess] = []

    /// - Parameters:
    ///   - executable: the `pushmedia` binary (by default this process's own).
    ///   - arguments: what starts an item process (`["item-process", "--log-level", …]`).
    public init(executable: URL = ItemProcessPool.currentExecutable, arguments: [String], logger: Logger) {
        self.executable = executable
        self.arguments = arguments
        self.logger = logger
        // A child that died leaves a pipe whose write would otherwise kill the supervisor.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The running binary.
    public static var currentExecutable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }

    /// The longest an item may take before its process is killed: past both of the profile's
    /// own time limits (which stop a decode or transcode from inside, with a clean `timeout`),
    /// so only work that ignores them meets it.
    public static func hardDeadline(for profile: Profile) -> Duration {
        let limit = max(profile.limits.timeoutSeconds, profile.limits.mediaTimeoutSeconds)
        return .milliseconds(Int64((limit * 1.25 + 5) * 1000))
    }

    /// Processes one file in a child process: the item it made, or a failed item saying how the
    /// child ended (never throws).
    public func process(_ input: InputFile, profile: Profile, outputDirectory: URL) async -> Item {
        let request: Data
        do {
            request = try JSONEncoder().encode(ItemRequest(input, profile: profile, outputDirectory: outputDirectory.path))
        } catch {
            return .failed(input.escapedSource, error: ItemError(.internalError, "cannot encode the item's request: \(error)"))
        }
        let child: ItemProcess
        if let reused = idle.popLast() {
            child = reused
        } else {
            do {
                child = try ItemProcess(executable: executable, arguments: arguments)
            } catch {
                return .failed(input.escapedSource, error: ItemError(.internalError, "cannot start an item process: \(error)"))
            }
        }
        let deadline = Self.hardDeadline(for: profile)
        switch await child.run(request, deadline: deadline) {
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
            let error = end.itemError(deadline: deadline)
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
        while idle.count < count, let child = try? ItemProcess(executable: executable, arguments: arguments) {
            idle.append(child)
        }
    }

    /// Ends the idle children and waits for them to exit (their standard input closes), so
    /// their CPU time is this process's in the operating system's accounting.
    public func close() async {
        let children = idle
        idle.removeAll()
        for child in children { child.close() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                for child in children { child.waitUntilExit() }
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
        case deadline
        case brokenStream(String)

        /// The label of `pushmedia_item_crashes_total`.
        var reason: String {
            switch self {
            case .signal(let number): ItemProcess.signalName(number)
            case .exit: "exit"
            case .deadline: "deadline"
            case .brokenStream: "broken_stream"
            }
        }

        func itemError(deadline: Duration) -> ItemError {
            switch self {
            case .signal(let number):
                ItemError(.workerCrashed, "the item's process was killed by \(ItemProcess.signalName(number)) (signal \(number)) while working on it")
            case .exit(let status):
                ItemError(.workerCrashed, "the item's process exited with status \(status) while working on it")
            case .deadline:
                ItemError(
                    .timeout,
                    "still running at the hard deadline of \(deadline.milliseconds / 1000) s (past the profile's time limits): its process was killed")
            case .brokenStream(let detail):
                ItemError(.workerCrashed, "the item's process answered with a broken stream: \(detail)")
            }
        }
    }

    private let process = Process()
    private let requests: FileHandle
    private let replies: FileHandle
    private let lock = NSLock()
    private var running = false
    private var killedAtDeadline = false

    init(executable: URL, arguments: [String]) throws {
        let toChild = Pipe()
        let fromChild = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = toChild
        process.standardOutput = fromChild
        process.standardError = FileHandle.standardError
        try process.run()
        requests = toChild.fileHandleForWriting
        replies = fromChild.fileHandleForReading
        // The child's ends belong to the child alone: the end of the stream must mean its end.
        try? toChild.fileHandleForReading.close()
        try? fromChild.fileHandleForWriting.close()
    }

    var pid: Int32 { process.processIdentifier }

    /// Sends one request and waits for the answer on a thread of its own (blocking reads), or
    /// for the child's end; kills the child at `deadline`.
    func run(_ request: Data, deadline: Duration) async -> Outcome {
        lock.withLock {
            running = true
            killedAtDeadline = false
        }
        let timer = DispatchWorkItem { [self] in
            let kill = lock.withLock { () -> Bool in
                guard running else { return false }
                killedAtDeadline = true
                return true
            }
            if kill { Glibc.kill(pid, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(deadline.milliseconds)), execute: timer)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: exchange(request))
            }
        }
        timer.cancel()
        lock.withLock { running = false }
        return outcome
    }

    private func exchange(_ request: Data) -> Outcome {
        do {
            try ItemFrames.write(request, to: requests.fileDescriptor)
            if let answer = try ItemFrames.read(from: replies.fileDescriptor) { return .answered(answer) }
        } catch {
            if process.isRunning { Glibc.kill(pid, SIGKILL) }
            process.waitUntilExit()
            return .ended(end(brokenStream: "\(error)"))
        }
        process.waitUntilExit()
        return .ended(end(brokenStream: nil))
    }

    private func end(brokenStream detail: String?) -> End {
        if lock.withLock({ killedAtDeadline }) { return .deadline }
        switch process.terminationReason {
        case .uncaughtSignal: return .signal(process.terminationStatus)
        case .exit:
            if let detail, process.terminationStatus == 0 { return .brokenStream(detail) }
            return .exit(process.terminationStatus)
        @unknown default: return .exit(process.terminationStatus)
        }
    }

    func close() {
        try? requests.close()
    }

    func waitUntilExit() {
        process.waitUntilExit()
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
