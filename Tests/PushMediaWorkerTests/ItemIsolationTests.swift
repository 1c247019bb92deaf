import Foundation
import PushMediaModel
import PushMediaQueue
import PushMediaTesting
import Testing

/// Crash containment: `process` and `worker` run each item's media work in a child process
/// (`pushmedia item-process`), so a crash, a kill or a loop that ignores its deadline costs that
/// item's attempt and never the batch, the worker or the other items. The crashes, holds, spins
/// and runaway allocations are `pushmedia-testing`'s item hooks (``ItemHookVariable``).
@Suite("Items in child processes")
struct ItemIsolationTests {
    func campaign(_ input: URL) -> String { "process:" + input.resolvingSymlinksInPath().path }

    /// Runs `pushmedia-testing process` over `input` into `out` with the item hooks in `hooks`
    /// (``ItemHookVariable`` → source) and `arguments` added; expects exit 1 (something failed)
    /// and returns the manifest.
    func processWithHooks(_ input: URL, out: URL, in folder: URL, hooks: [String: String], _ arguments: [String] = []) async throws -> Manifest {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(hooks) { _, hook in hook }
        let run = try BackgroundProcess(
            Support.pushmediaTesting, ["process", input.path, "--out", out.path, "--jobs", "2"] + arguments, in: folder, name: "run",
            environment: environment)
        let status = await run.exitStatus(within: 300)
        #expect(run.process.terminationReason == .exit && status == 1, "\(status) \(run.error)")
        return try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
    }

    @Test("a file that crashes its process every time: one run finishes the batch, the file failed worker_crashed after 3 attempts")
    func poisonFileInOneRun() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(5, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        let manifest = try await processWithHooks(input, out: out, in: folder, hooks: [ItemHookVariable.crash: "img003.jpg"])
        #expect(manifest.items.map(\.source) == (1...5).map { String(format: "img%03d.jpg", $0) })
        let poison = try #require(manifest.item(source: "img003.jpg"))
        #expect(poison.status == .failed && poison.error?.code == .workerCrashed, "\(String(describing: poison.error))")
        #expect(
            poison.error?.message.contains("SIGSEGV") == true && poison.error?.message.contains("3 attempts") == true,
            "\(poison.error?.message ?? "")")
        #expect(manifest.items.filter { $0.source != "img003.jpg" }.allSatisfy { $0.status == .ok && $0.attachments.count == 3 })
        // The others lost no attempt to it.
        let jobs = try await Support.jobs("sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: campaign(input))
        #expect(jobs.filter { $0.source != "img003.jpg" }.allSatisfy { $0.attempts == 1 }, "\(jobs.map { "\($0.source) \($0.attempts)" })")
        #expect(jobs.first { $0.source == "img003.jpg" }.map { $0.state == .dead && $0.attempts == 3 } == true)
    }

    @Test("an item process killed from outside mid-item (SIGKILL): that attempt fails worker_crashed, the retry succeeds, the rest are untouched")
    func childKilledFromOutside() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(4, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        let gate = try ItemGate(in: folder, holding: ["img002.jpg"])
        let run = try BackgroundProcess(
            Support.pushmediaTesting, ["process", input.path, "--out", out.path, "--jobs", "2"], in: folder, name: "run",
            environment: gate.environment)
        #expect(await run.wait(seconds: 300) { gate.pid("img002.jpg") != nil }, "\(run.error)")
        let child = try #require(gate.pid("img002.jpg"))
        #expect(child != run.process.processIdentifier, "the item runs in a child process")
        // Forked by the fork server (itself forked from the supervisor: the same command line,
        // no `item-process` started), and adopted by the supervisor, which waits for it.
        #expect(Self.parent(of: child) == run.process.processIdentifier)
        #expect(Self.commandLine(of: child) == Self.commandLine(of: run.process.processIdentifier), "\(Self.commandLine(of: child))")
        #expect(kill(child, SIGKILL) == 0)
        // The retry meets the gate again: open it.
        gate.open("img002.jpg")
        let status = await run.exitStatus(within: 300)
        #expect(run.process.terminationReason == .exit && status == 0, "\(status) \(run.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.count == 4 && manifest.items.allSatisfy { $0.status == .ok })
        let jobs = try await Support.jobs("sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: campaign(input))
        let killed = try #require(jobs.first { $0.source == "img002.jpg" })
        #expect(
            killed.attempts == 2 && killed.errorHistory.contains { $0.code == "worker_crashed" && $0.message.contains("SIGKILL") },
            "\(killed.errorHistory)")
        #expect(jobs.filter { $0.source != "img002.jpg" }.allSatisfy { $0.attempts == 1 && $0.errorHistory.isEmpty })
    }

    @Test("without the fork server (PUSHMEDIA_ITEM_FORK_SERVER=0) item processes are started anew, with the same outputs")
    func withoutForkServer() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(3, size: "320x240", in: folder)
        var files: [[String]] = []
        for forkServer in ["1", "0"] {
            let out = folder.appendingPathComponent("out-\(forkServer)")
            let gate = try ItemGate(in: folder.appendingPathComponent("gate-\(forkServer)"), holding: ["img001.jpg"])
            var environment = gate.environment
            environment["PUSHMEDIA_ITEM_FORK_SERVER"] = forkServer
            let run = try BackgroundProcess(
                Support.pushmediaTesting, ["process", input.path, "--out", out.path, "--jobs", "1"], in: folder, name: "run-\(forkServer)",
                environment: environment)
            #expect(await run.wait(seconds: 300) { gate.pid("img001.jpg") != nil }, "\(run.error)")
            let child = try #require(gate.pid("img001.jpg"))
            #expect(Self.parent(of: child) == run.process.processIdentifier)
            let command = Self.commandLine(of: child)
            #expect(command.contains("item-process") == (forkServer == "0"), "\(command)")
            gate.open("img001.jpg")
            let status = await run.exitStatus(within: 300)
            #expect(run.process.terminationReason == .exit && status == 0, "\(status) \(run.error)")
            let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
            files.append(manifest.items.flatMap { $0.attachments.map(\.file) })
        }
        // Outputs are named by their content: the same names are the same bytes.
        #expect(files.count == 2 && files[0] == files[1] && files[0].count == 9, "thumbnail, expanded and Android image of 3 items: \(files)")
    }

    /// The parent pid of `pid` (`PPid` in /proc/PID/status), nil once it is gone.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") })
        else { return nil }
        return pid_t(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
    }

    /// The command line of `pid`, its arguments joined by spaces.
    static func commandLine(of pid: pid_t) -> String {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    @Test("an item that allocates without end meets its process's memory limit: that item fails worker_crashed, the rest is done within the limit")
    func runawayAllocationMeetsTheLimit() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(3, size: "640x480", in: folder)
        let out = folder.appendingPathComponent("out")
        // Under AddressSanitizer (scripts/test's build) a failed allocation is a report and an
        // abort of ASan's own unless its allocator may return null, as glibc's does.
        var hooks = [ItemHookVariable.allocate: "img002.jpg"]
        if let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] {
            hooks["ASAN_OPTIONS"] = options + ":allocator_may_return_null=1"
        }
        let manifest = try await processWithHooks(input, out: out, in: folder, hooks: hooks, ["--item-memory-limit", "768"])
        let runaway = try #require(manifest.item(source: "img002.jpg"))
        #expect(
            runaway.status == .failed && runaway.error?.code == .workerCrashed && runaway.error?.message.contains("SIGABRT") == true,
            "\(String(describing: runaway.error))")
        #expect(manifest.items.filter { $0.source != "img002.jpg" }.allSatisfy { $0.status == .ok })
    }

    /// An Adam7-interlaced 16-bit RGBA PNG of `side`² pixels: libvips decodes an interlaced PNG
    /// whole, 8 bytes a pixel, so its memory is known in advance (392 MB at 7000²).
    static func interlacedPNG(side: Int, at file: URL, in folder: URL) async throws {
        let script = """
            import struct, sys, zlib
            w = h = int(sys.argv[2])
            comp, out = zlib.compressobj(1), bytearray()
            for x0, y0, dx, dy in [(0,0,8,8),(4,0,8,8),(0,4,4,8),(2,0,4,4),(0,2,2,4),(1,0,2,2),(0,1,1,2)]:
                pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
                for j in range(ph if pw else 0):
                    px = struct.pack('>HHHH', ((y0 + j * dy) * 7) & 0xFFFF, 0x8000, 0x4000, 0xFFFF)
                    out += comp.compress(b'\\0' + px * pw)
            out += comp.flush()
            chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            ihdr = struct.pack('>IIBBBBB', w, h, 16, 6, 0, 0, 1)
            open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', bytes(out)) + chunk(b'IEND', b''))
            """
        let made = try await Support.run("/usr/bin/python3", ["-c", script, file.path, "\(side)"], in: folder)
        guard made.status == 0 else { throw SupportError("python3: \(made.error)") }
    }

    @Test("an item that needs more memory than the limit fails memory_limit naming the flag; under a higher limit the same file is ok")
    func memoryLimitNamed() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "320x240", in: folder)
        try await Self.interlacedPNG(side: 7000, at: input.appendingPathComponent("interlaced.png"), in: folder)
        // Under AddressSanitizer a refused allocation is returned as null, as glibc's is.
        var environment: [String: String] = [:]
        if let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] {
            environment["ASAN_OPTIONS"] = options + ":allocator_may_return_null=1"
        }
        let out = folder.appendingPathComponent("out")
        let manifest = try await processWithHooks(input, out: out, in: folder, hooks: environment, ["--item-memory-limit", "384"])
        let big = try #require(manifest.item(source: "interlaced.png"))
        #expect(big.status == .failed && big.error?.code == .memoryLimit, "\(String(describing: big.error))")
        #expect(big.error?.message.contains("--item-memory-limit 384 MB") == true, "\(String(describing: big.error))")
        #expect(manifest.item(source: "img001.jpg")?.status == .ok)

        let roomy = folder.appendingPathComponent("roomy")
        var all = ProcessInfo.processInfo.environment
        all.merge(environment) { _, new in new }
        let run = try BackgroundProcess(
            Support.pushmediaTesting, ["process", input.path, "--out", roomy.path, "--jobs", "1", "--item-memory-limit", "2048"], in: folder,
            name: "roomy", environment: all)
        let status = await run.exitStatus(within: 300)
        #expect(run.process.terminationReason == .exit && status == 0, "\(status) \(run.error)")
        let ok = try Manifest.decode(from: Data(contentsOf: roomy.appendingPathComponent("manifest.json")))
        #expect(ok.item(source: "interlaced.png")?.status == .ok, "\(String(describing: ok.item(source: "interlaced.png")?.error))")
    }

    @Test("--item-memory-limit out of range is exit 2 saying so, never a wrapped or trapping limit")
    func memoryLimitFlagRange() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        for (value, says) in [
            ("17592186044416", "at most 134217728"), ("9007199254740992", "at most 134217728"), ("\(Int.max)", "at most 134217728"),
            ("-1", "must be 0 (no limit) or at least 384"), ("100", "at least 384"),
        ] {
            let run = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path, "--item-memory-limit", value], in: folder)
            #expect(run.status == 2 && run.error.contains(says), "\(value): \(run.status) \(run.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
        // The largest accepted limits nothing, and every item is made under it.
        let run = try await Support.run(
            Support.pushmedia, ["process", input.path, "--out", out.path, "--item-memory-limit", "\(1 << 27)"], in: folder)
        #expect(run.status == 0, "\(run.error)")
    }

    @Test("an item process whose input ends while it still starts libvips and the face model waits for them, then exits 0")
    func endsAfterItsPreparation() async throws {
        let folder = try Support.temporaryFolder()
        let gate = try ItemGate(in: folder, holding: ["prepare"])
        // Its input is a socket of its own, made close-on-exec, so that no other process a test
        // starts meanwhile holds this end open (then the input would never end).
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        let input = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let run = try BackgroundProcess(
            Support.pushmediaTesting, ["item-process"], in: folder, name: "item", environment: gate.environment, input: input)
        try input.close()
        #expect(await run.wait(seconds: 300) { gate.isHeld("prepare") }, "\(run.error)")
        close(ends[1])
        // The process read the end of its input while its preparation is held: were it to exit
        // now, `exit` would free the face model's statics under the preparing thread.
        #expect(await run.wait(seconds: 300) { gate.hasReached("item-process-input-ended") }, "\(run.error)")
        #expect(run.process.isRunning && !gate.hasReached("prepared"))
        gate.open("prepare")
        let status = await run.exitStatus(within: 300)
        #expect(run.process.terminationReason == .exit && status == 0, "\(status) \(run.error)")
        #expect(gate.hasReached("prepared"), "the process exited before its preparation ended")
    }

    @Test("an item that loops forever, past every deadline check, is killed at its hard deadline and fails timeout")
    func spinningItemIsKilledAtItsDeadline() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(2, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        // The profile's own limits at 1 s: the hard deadline is 1 × 1.25 + 5 s.
        let profile = folder.appendingPathComponent("short.json")
        try Data(#"{"limits":{"timeoutSeconds":1,"mediaTimeoutSeconds":1}}"#.utf8).write(to: profile)
        let manifest = try await processWithHooks(
            input, out: out, in: folder, hooks: [ItemHookVariable.spin: "img001.jpg"], ["--profile", profile.path])
        let spun = try #require(manifest.item(source: "img001.jpg"))
        #expect(
            spun.status == .failed && spun.error?.code == .timeout && spun.error?.message.contains("hard deadline") == true,
            "\(String(describing: spun.error))")
        // The other item is not taken down with it. (Its own 1 s limit may pass on a busy
        // machine, a sanitized build too: then it failed timeout by its deadline check, not killed.)
        let other = try #require(manifest.item(source: "img002.jpg"))
        #expect(
            other.status == .ok || (other.error?.code == .timeout && other.error?.message.contains("hard deadline") == false),
            "\(String(describing: other.error))")
    }
}
