import CProcessControl
import Foundation

/// The process plumbing of the worker: crash containment's fork server (fork_server.c), the
/// process-wide settings of a long batch or worker process, and an item process's address-space
/// limit and priority. C carries out what Swift cannot call itself (`prctl`, `SCM_RIGHTS`
/// messages, `fork` before any thread, `mallopt`).
public enum ProcessControl {
    /// Caps glibc's malloc arenas for a long batch or worker process. glibc gives busy threads
    /// arenas of their own and keeps their freed memory, so with libvips' and the batch's threads
    /// RSS crept up ~30 % over 1,000 images; two arenas keep it flat (libvips' and imgproxy's
    /// advice). `MALLOC_ARENA_MAX` in the environment wins. Call before starting threads.
    public static func limitMemoryArenas(_ count: Int = 2) {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = pm_limit_malloc_arenas(Int32(count))
    }

    /// Makes this process adopt its orphaned descendants, so the item processes the fork server
    /// makes are its children. False when the kernel refuses.
    public static func becomeChildSubreaper() -> Bool { pm_set_child_subreaper() == 0 }

    /// The nice value of this process's main thread: the priority the operator started it with
    /// (`nice -n`, systemd's `Nice=`). On Linux a nice value belongs to a thread, and a process
    /// started or forked from a thread has that thread's; Dispatch's worker threads (which run
    /// Swift concurrency's tasks) each get one of their own from their quality of service
    /// (0, -2, -4), whatever the process was started with. Nil when unknown.
    public static var operatorPriority: Int32? {
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        return nice == -1 && errno != 0 ? nil : nice
    }

    /// Gives the calling thread the nice value `nice`; threads it starts and processes it forks
    /// inherit it. False when the kernel refuses (a lower value than now needs `CAP_SYS_NICE`).
    public static func setThreadPriority(_ nice: Int32) -> Bool {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0
    }

    /// Caps this process's address space (`RLIMIT_AS`) at what it has mapped now plus
    /// `megabytes`: past it allocations fail. Counting from what is mapped makes the limit
    /// the growth allowed, whatever the process mapped before (its libraries, the thread
    /// stacks, AddressSanitizer's terabytes of shadow memory in the test build). Returns the
    /// bytes mapped it counts from.
    @discardableResult
    public static func limitAddressSpace(growth megabytes: Int) throws -> Int {
        guard let mapped = mappedAddressSpace else { throw POSIXError(.ENOENT) }
        guard megabytes >= 0 else { throw POSIXError(.EINVAL) }
        // A growth past what 64 bits hold is no limit at all (RLIM_INFINITY), never a wrapped
        // one (RLIM_INFINITY is all ones): 2^44 MB shifted by 20 bits would be 0, a limit nothing fits under.
        let growth = rlim_t(megabytes).multipliedReportingOverflow(by: 1 << 20)
        let total = rlim_t(mapped).addingReportingOverflow(growth.partialValue)
        let bytes = growth.overflow || total.overflow ? rlim_t.max : total.partialValue
        var limit = rlimit(rlim_cur: bytes, rlim_max: bytes)
        guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        return mapped
    }

    /// Threads of this process now (`Threads` of /proc/self/status); nil when unknown.
    public static var threadCount: Int? {
        status("Threads").flatMap { $0 > 0 ? $0 : nil }
    }

    /// Bytes of address space this process has mapped (`VmSize` of /proc/self/status); nil when
    /// unknown.
    public static var mappedAddressSpace: Int? {
        status("VmSize").map { $0 * 1024 }
    }

    /// The number a field of /proc/self/status starts with (`VmSize:   1234 kB` gives 1234): the
    /// one place the file is read, with plain reads (the fork server asks before any thread runs).
    static func status(_ field: String) -> Int? {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
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
