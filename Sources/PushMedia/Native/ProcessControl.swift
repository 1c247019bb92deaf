import CPushMediaShims
import Foundation

/// The process plumbing of crash containment's fork server (fork_server.c): what Swift cannot
/// call itself (`prctl`, `SCM_RIGHTS` messages, `fork` before any thread).
public enum ProcessControl {
    /// Makes this process adopt its orphaned descendants, so the item processes the fork server
    /// makes are its children. False when the kernel refuses.
    public static func becomeChildSubreaper() -> Bool { pm_set_child_subreaper() == 0 }

    /// Threads of this process now; nil when unknown.
    public static var threadCount: Int? {
        let count = pm_thread_count()
        return count > 0 ? Int(count) : nil
    }

    /// Sends two descriptors over a unix socket.
    public static func send(_ a: Int32, _ b: Int32, over socket: Int32) throws {
        guard pm_send_fds(socket, a, b) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// What ``forkServerLoop(control:)`` returned in this process.
    public enum ForkServerExit {
        /// This process is a new item process: serve items on standard input and output.
        case itemProcess
        /// The supervisor closed the control socket.
        case closed
        /// The control socket failed.
        case failed
    }

    /// The fork server's loop: forks item processes until the control socket ends. Call only
    /// while this process has one thread.
    public static func forkServerLoop(control: Int32) -> ForkServerExit {
        switch pm_fork_server_loop(control) {
        case 0: .itemProcess
        case 1: .closed
        default: .failed
        }
    }
}
