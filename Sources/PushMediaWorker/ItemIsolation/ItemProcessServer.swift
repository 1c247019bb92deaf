import Foundation
import Logging
import PushMedia
import PushMediaModel

/// The item process's side (`pushmedia item-process`, started by ``ItemProcessPool``): reads
/// ``ItemRequest`` frames from standard input, processes each file with ``ItemProcessor`` (one
/// at a time) and writes the item back as a frame, until standard input ends. Before the first
/// item's frame it writes an empty one, once started (``ItemProcess``'s start deadline waits for
/// it). Whatever a library prints to standard output goes to standard error instead, so it
/// cannot break the frames.
public enum ItemProcessServer {
    /// The smallest `memoryLimitMB` `process` and `worker` accept: below it they refuse to
    /// start. One item process making a photo, a GIF and a movie grew by up to 180 MB on 2 cores
    /// (FFmpeg's libraries, opened for the first movie, map ~80 MB of it); FFmpeg's decoder
    /// starts a thread per core plus one, up to 16, each with a stack of `ulimit -s` (8 MB), so
    /// a 16-core machine needs ~100 MB more (docs/security.md#crash-containment).
    public static let minimumMemoryLimitMB = 384
    /// The largest `memoryLimitMB` `process` and `worker` accept: 128 TiB, x86-64's and
    /// AArch64's user address space (a larger growth limits nothing).
    public static let maximumMemoryLimitMB = 1 << 27

    /// Serves until the supervisor closes the pipe (returns 0) or the stream breaks (1). With a
    /// `memoryLimitMB` above 0 the process's address space may grow by that much past what it
    /// has mapped once started (`RLIMIT_AS`, set before the first item): past it allocations
    /// fail, and at worst this process dies, costing one item's attempt. `priority`, when
    /// given, becomes the process's nice value first, before any thread starts (the
    /// supervisor's own: this process may have been started from a thread with another).
    /// `hooks` go with every item (``ProcessingOptions/hooks``; nil in the product).
    public static func serve(logger: Logger, memoryLimitMB: Int = 0, priority: Int32? = nil, hooks: (any ItemHooks)? = nil) -> Int32 {
        if let priority, !ProcessControl.setThreadPriority(priority) {
            logger.warning(
                "item process: cannot take its supervisor's priority",
                metadata: ["nice": "\(priority)", "error": "\(String(cString: strerror(errno)))"])
        }
        let replies = dup(STDOUT_FILENO)
        guard replies >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            logger.critical("item process: cannot set up its output", metadata: ["error": "\(String(cString: strerror(errno)))"])
            return 1
        }
        // Ctrl-C reaches the whole process group, and systemd's stop every process of the unit:
        // the supervisor decides when an item process ends (its pipe closes, or it is killed),
        // so an interrupted run gives its items back instead of counting their process's death.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        watchParent()
        // libvips and the face model start while the first request is on its way. The process
        // ends only once they have: `exit` frees what a library made for the process's life
        // while that thread may still be making it (the face model, read after its free).
        let prepared = DispatchGroup()
        ItemProcessor.prepare(for: .default, in: prepared, hooks: hooks)
        defer { prepared.wait() }
        var started = false
        // The limit in force (0: none, also when setting it failed): only then is a refused
        // allocation the limit's doing.
        var appliedLimitMB = 0
        while true {
            let frame: Data
            do {
                guard let read = try ItemFrames.read(from: STDIN_FILENO) else {
                    hooks?.at(.itemProcessInputEnded)
                    return 0
                }
                frame = read
            } catch {
                logger.error("item process: the supervisor's stream broke", metadata: ["error": "\(error)"])
                return 1
            }
            if !started {
                // The limit counts from here: libvips, the face model and the threads of a
                // started process are mapped (their size is the machine's, not the item's), and
                // no item has begun.
                prepared.wait()
                if memoryLimitMB > 0 {
                    do {
                        let mapped = try ProcessControl.limitAddressSpace(growth: memoryLimitMB)
                        appliedLimitMB = memoryLimitMB
                        logger.debug(
                            "item process: its address space may grow by its memory limit",
                            metadata: ["mapped_mb": "\(mapped >> 20)", "limit_mb": "\(memoryLimitMB)"])
                    } catch {
                        logger.warning("item process: cannot limit its memory", metadata: ["error": "\(error)"])
                    }
                }
                do {
                    try ItemFrames.write(Data(), to: replies)
                } catch {
                    logger.error("item process: cannot answer the supervisor", metadata: ["error": "\(error)"])
                    return 1
                }
                started = true
            }
            let item: Item
            do {
                let request = try JSONDecoder().decode(ItemRequest.self, from: frame)
                let options = ProcessingOptions(
                    outputDirectory: URL(fileURLWithPath: request.outputDirectory), layout: request.layout, hooks: hooks,
                    ledger: request.ledger.map { OutputLedger(file: URL(fileURLWithPath: $0)) })
                let processor = ItemProcessor(profile: request.profile, options: options, logger: logger)
                item = MemoryLimitFailure.classify(processor.process(request.input), limitMB: appliedLimitMB)
            } catch {
                item = .failed(source: "", error: ItemError(.internalError, "the item process could not read its request: \(error)"))
            }
            do {
                try ItemFrames.write(try item.jsonData(), to: replies)
            } catch {
                logger.error("item process: cannot answer the supervisor", metadata: ["error": "\(error)"])
                return 1
            }
        }
    }

    /// Ends this process when its supervisor is gone (killed with `kill -9`, say): the pipe only
    /// says so when an item is done, and a movie may take minutes.
    private static func watchParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { sleep(1) }
            _exit(137)
        }
    }
}

extension ItemProcessServer {
    /// The item processes' fork server (`pushmedia item-fork-server`, ``ItemForkServer``): call
    /// from a synchronous `main`, before any thread starts. Returns in each item process it
    /// forks once that process is done serving, and in the server when its supervisor closes it.
    /// `priority`, when given, becomes the server's nice value first, and so its item processes'.
    public static func serveForks(logger: Logger, memoryLimitMB: Int = 0, priority: Int32? = nil, hooks: (any ItemHooks)? = nil) -> Int32 {
        ItemForkServer.serve(logger: logger, memoryLimitMB: memoryLimitMB, priority: priority, hooks: hooks)
    }

    /// Forks the fork server from this process (`process`, `worker`): call from a synchronous
    /// `main` before any thread starts; the first ``ItemProcessPool`` uses it, so no process of
    /// the binary is started anew. `logger` is made in the server only. Does nothing when this
    /// process already has threads or cannot adopt orphans (the pool then starts a server).
    /// `hooks` go with the server's preparation and every item of the processes it forks.
    public static func forkServerEarly(memoryLimitMB: Int, hooks: (any ItemHooks)? = nil, logger: () -> Logger) {
        ItemForkServer.forkEarly(memoryLimitMB: memoryLimitMB, hooks: hooks, logger: logger)
    }
}
