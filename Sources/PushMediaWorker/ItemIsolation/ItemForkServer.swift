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
/// the supervisor (a child subreaper): the supervisor waits for it as its own child and learns
/// how it ended (the signal) as before. When the server cannot be started or fails, the pool
/// starts item processes itself (`pushmedia item-process`), as it did before.
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

    private let process = Process()
    private var control: Int32
    private let lock = NSLock()

    /// Starts `executable arguments` (`item-fork-server …`) with one end of a unix socket as its
    /// standard input.
    init(executable: URL, arguments: [String]) throws {
        guard ProcessControl.becomeChildSubreaper() else { throw Failure.setUp("prctl(PR_SET_CHILD_SUBREAPER): \(String(cString: strerror(errno)))") }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw Failure.setUp("socketpair: \(String(cString: strerror(errno)))")
        }
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
        process.waitUntilExit()
    }

    /// The server's side (`pushmedia item-fork-server`): loads libvips and the face model, then
    /// forks an item process for each request on standard input, which goes on as
    /// ``ItemProcessServer/serve(logger:memoryLimitMB:)``. Runs only single-threaded: called
    /// before Swift concurrency or Dispatch started a thread (the command's synchronous `main`).
    static func serve(logger: Logger, memoryLimitMB: Int) -> Int32 {
        // Ctrl-C reaches the whole process group: the supervisor decides when this ends.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        ItemProcessor.prepareNow(for: .default)
        guard let threads = ProcessControl.threadCount, threads == 1 else {
            logger.error("item fork server: not single-threaded, so it cannot fork; item processes are started anew")
            return 3
        }
        switch ProcessControl.forkServerLoop(control: STDIN_FILENO) {
        case .itemProcess: return ItemProcessServer.serve(logger: logger, memoryLimitMB: memoryLimitMB)
        case .closed: return 0
        case .failed:
            logger.error("item fork server: its control socket failed", metadata: ["error": "\(String(cString: strerror(errno)))"])
            return 1
        }
    }
}
