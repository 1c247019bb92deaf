import Foundation
import Logging
import PushMedia
import PushMediaModel

/// The item processes' fork server (`pushmedia item-fork-server`): one child of the supervisor,
/// started once, that loads libvips and the face model and then, single-threaded, forks each
/// item process. An item process made so shares the server's loaded libraries instead of
/// starting the binary anew: no dynamic linking of libvips' hundred-odd libraries, no Swift
/// runtime start, no libvips or model start, which cost ~85 ms of CPU a child
/// (docs/benchmarks/containment.md).
///
/// Each item process is forked through a middle process that exits at once, so it is adopted by
/// the supervisor (a child subreaper): the supervisor waits for it as its own child and so learns
/// how it ended (the signal). When the server cannot be started or fails, the pool starts each
/// item process itself (`pushmedia item-process`).
final class ItemForkServer: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case setUp(String)
        case spawn(String)

        var description: String {
            switch self {
            case .setUp(let reason): "the fork server cannot start: \(reason)"
            case .spawn(let reason): "the fork server did not make an item process: \(reason)"
            }
        }
    }

    /// The server: a child started anew (`pushmedia item-fork-server`), or forked from this
    /// process before its first thread (``preforked``).
    private enum Server {
        case started(Process)
        case forked(pid_t)
    }

    private let server: Server
    private var control: Int32
    private let lock = NSLock()

    /// The server `process` and `worker` fork from themselves in `main`, before any thread
    /// starts (``forkEarly(logger:memoryLimitMB:)``): no start of the binary at all. Nil when
    /// none was forked; taken by the first pool.
    nonisolated(unsafe) private static var early: ItemForkServer?
    private static let earlyLock = NSLock()

    /// Forks the fork server from this process: call from a synchronous `main`, before any
    /// thread starts. Returns in this process (which keeps the server for the first
    /// ``ItemProcessPool``); the server itself never returns from here (it exits).
    static func forkEarly(memoryLimitMB: Int, hooks: (any ItemHooks)?, logger makeLogger: () -> Logger) {
        guard ProcessControl.becomeChildSubreaper(), ProcessControl.threadCount == 1 else { return }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return }
        let pid = fork()
        if pid == 0 {
            Glibc.close(pair[0])
            exit(serve(logger: makeLogger(), memoryLimitMB: memoryLimitMB, hooks: hooks, control: pair[1]))
        }
        Glibc.close(pair[1])
        guard pid > 0 else {
            Glibc.close(pair[0])
            return
        }
        earlyLock.withLock { early = ItemForkServer(forked: pid, control: pair[0]) }
    }

    /// The early server, once (nil when there is none, or it was taken).
    static func takeEarly() -> ItemForkServer? {
        earlyLock.withLock {
            defer { early = nil }
            return early
        }
    }

    private init(forked pid: pid_t, control: Int32) {
        server = .forked(pid)
        self.control = control
    }

    /// Starts `executable arguments` (`item-fork-server …`) with one end of a unix socket as its
    /// standard input.
    init(executable: URL, arguments: [String]) throws {
        guard ProcessControl.becomeChildSubreaper() else { throw Failure.setUp("prctl(PR_SET_CHILD_SUBREAPER): \(String(cString: strerror(errno)))") }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw Failure.setUp("socketpair: \(String(cString: strerror(errno)))")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle(fileDescriptor: pair[1], closeOnDealloc: false)
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            Glibc.close(pair[0])
            Glibc.close(pair[1])
            throw Failure.setUp("\(error)")
        }
        Glibc.close(pair[1])
        control = pair[0]
        server = .started(process)
    }

    /// A new item process: its pid (a child of this process once adopted) and this side's ends
    /// of its standard input and output.
    func spawn() throws -> (pid: pid_t, requests: FileHandle, replies: FileHandle) {
        let toChild = Pipe()
        let fromChild = Pipe()
        defer {
            // The item process has its own copies now: the end of a stream must mean its end.
            try? toChild.fileHandleForReading.close()
            try? fromChild.fileHandleForWriting.close()
        }
        let reply: Int32 = try lock.withLock {
            guard control >= 0 else { throw Failure.spawn("closed") }
            do {
                try ProcessControl.send(
                    toChild.fileHandleForReading.fileDescriptor, fromChild.fileHandleForWriting.fileDescriptor, over: control)
            } catch {
                throw Failure.spawn("cannot send it the pipes: \(error)")
            }
            var value: Int32 = 0
            var got = 0
            while got < 4 {
                let n = withUnsafeMutableBytes(of: &value) { read(control, $0.baseAddress! + got, 4 - got) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw Failure.spawn(n == 0 ? "it ended" : String(cString: strerror(errno))) }
                got += n
            }
            return value
        }
        guard reply > 0 else { throw Failure.spawn("fork: \(String(cString: strerror(-reply)))") }
        return (reply, toChild.fileHandleForWriting, fromChild.fileHandleForReading)
    }

    /// Ends the server (its socket closes) and waits for it.
    func close() {
        lock.withLock {
            if control >= 0 { Glibc.close(control) }
            control = -1
        }
        switch server {
        case .started(let process): process.waitUntilExit()
        case .forked(let pid):
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// The server's side (`pushmedia item-fork-server`): loads libvips and the face model, then
    /// forks an item process for each request on standard input, which goes on as
    /// ``ItemProcessServer/serve(logger:memoryLimitMB:priority:hooks:)``. Runs only
    /// single-threaded: called before Swift concurrency or Dispatch started a thread (the
    /// command's synchronous `main`). `priority`, when given, becomes its nice value first: the
    /// supervisor's, which started it from a thread that may have another; its item processes
    /// inherit it.
    static func serve(logger: Logger, memoryLimitMB: Int, priority: Int32? = nil, hooks: (any ItemHooks)?, control: Int32 = STDIN_FILENO)
        -> Int32
    {
        if let priority, !ProcessControl.setThreadPriority(priority) {
            logger.warning(
                "item fork server: cannot take its supervisor's priority",
                metadata: ["nice": "\(priority)", "error": "\(String(cString: strerror(errno)))"])
        }
        // Ctrl-C reaches the whole process group: the supervisor decides when this ends.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        ItemProcessor.prepareNow(for: .default, hooks: hooks)
        guard let threads = ProcessControl.threadCount, threads == 1 else {
            logger.error("item fork server: not single-threaded, so it cannot fork; item processes are started anew")
            return 3
        }
        switch ProcessControl.forkServerLoop(control: control) {
        case .itemProcess: return ItemProcessServer.serve(logger: logger, memoryLimitMB: memoryLimitMB, hooks: hooks)
        case .closed: return 0
        case .failed:
            logger.error("item fork server: its control socket failed", metadata: ["error": "\(String(cString: strerror(errno)))"])
            return 1
        }
    }
}
