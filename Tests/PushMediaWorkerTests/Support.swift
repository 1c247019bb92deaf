import Foundation
import PushMediaQueue
import PushMediaTesting
import Testing

/// A `pushmedia` (or other) process running in the background: its output is collected into
/// files, and the test can wait for text, send signals and wait for the exit.
final class BackgroundProcess: @unchecked Sendable {
    let process = Process()
    let outputFile: URL
    let errorFile: URL

    /// `input` is the process's standard input (the null device when nil).
    init(
        _ executable: String, _ arguments: [String], in folder: URL, name: String, environment: [String: String]? = nil,
        input: FileHandle? = nil
    ) throws {
        outputFile = folder.appendingPathComponent("\(name).out")
        errorFile = folder.appendingPathComponent("\(name).err")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
    }

    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var error: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds (checked every 50 ms) or `seconds` pass; false on timeout.
    @discardableResult
    func wait(seconds: Double, until condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// The same with a condition that awaits (reading a queue, say).
    @discardableResult
    func wait(seconds: Double, until condition: () async -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Stops a helper server (HTTP, S3 proxy) for good: SIGKILL, since SIGTERM is blocked in the
    /// signal mask it inherits from the spawning thread.
    func stop() { signal(SIGKILL) }

    /// Waits for the exit (killing it after `seconds`) and returns the status. Polls instead of
    /// `waitUntilExit()`, which blocks a thread of Swift's small cooperative pool.
    func exitStatus(within seconds: Double) async -> Int32 {
        if !(await wait(seconds: seconds, until: { !process.isRunning })) {
            signal(SIGKILL)
            await wait(seconds: 10, until: { !process.isRunning })
            return -1
        }
        return process.terminationStatus
    }
}

enum Support {
    /// The shipped `pushmedia`, built next to the test bundle.
    static var pushmedia: String { TestPaths.pushmedia }

    /// `pushmedia-testing`: the same commands with the item hooks, for runs with an ``ItemGate``
    /// or crash, spin and allocation hooks (``ItemHookVariable``).
    static var pushmediaTesting: String { TestPaths.pushmediaTesting }

    static let packageRoot = TestPaths.packageRoot

    /// The committed fixtures.
    static let fixtures = TestPaths.fixtures

    /// The fixtures broken on purpose: they fail, and nothing else does.
    static let brokenFixtures = [
        "broken/empty.jpg", "broken/not-an-image.jpg", "broken/truncated.jpg", "broken/truncated.mp4", "broken/truncated.png",
    ]

    /// Every committed fixture path, relative to `Fixtures/`, sorted.
    static func fixtureSources() throws -> [String] { try TestPaths.fixtureSources() }

    static func temporaryFolder(_ name: String = #function) throws -> URL {
        try TestPaths.temporaryFolder(prefix: "pushmedia-worker", name)
    }

    /// Runs a command to the end; returns status, standard output and standard error.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: URL, timeout: Double = 300) async throws
        -> (status: Int32, output: String, error: String)
    {
        let name = "run-\(UUID().uuidString.prefix(8))"
        let process = try BackgroundProcess(executable, arguments, in: folder, name: name)
        let status = await process.exitStatus(within: timeout)
        return (status, process.output, process.error)
    }

    /// `count` distinct high-detail JPEGs (frames of FFmpeg's test pattern), made with the ffmpeg CLI.
    static func images(_ count: Int, size: String = "2400x1600", in folder: URL) async throws -> URL {
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let made = try await run(
            "/usr/bin/env",
            [
                "ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size):r=1", "-frames:v", "\(count)",
                "-q:v", "3", input.appendingPathComponent("img%03d.jpg").path,
            ], in: folder)
        guard made.status == 0 else { throw SupportError("ffmpeg: \(made.error)") }
        return input
    }

    /// The PostgreSQL URL for tests (with its own table prefix, so tests do not see each other's
    /// jobs). In CI a missing database is a failure, never a skip.
    static func postgresURL(_ variable: String = "PUSHMEDIA_TEST_POSTGRES_URL") throws -> String? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                throw SupportError("\(variable) is not set: CI must run these tests against a real PostgreSQL (scripts/test starts one)")
            }
            return nil
        }
        let prefix = "pm_e2e_\(UUID().uuidString.prefix(8).lowercased())_"
        return url + (url.contains("?") ? "&" : "?") + "prefix=\(prefix)"
    }

    static var postgresConfigured: Bool {
        ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_POSTGRES_URL"]?.isEmpty == false
            || ProcessInfo.processInfo.environment["CI"] == "true"
    }
}

struct SupportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Support {
    /// A campaign's jobs, read from the queue at `url` (e.g. `sqlite:PATH`, `postgres://…`).
    static func jobs(_ url: String, campaign: String) async throws -> [Job] {
        let queue = try await JobQueueFactory.open(url: url)
        let jobs = try await queue.jobs(campaign: campaign)
        await queue.close()
        return jobs
    }

    /// Runs a program with posix_spawn and waits for it on a thread of its own. For programs that
    /// leave a daemon behind (`pg_ctlcluster restart`): Foundation's Process reports a child running
    /// while any process still holds its status socket, so neither the program nor its daemon may
    /// inherit the test's descriptors (swift-corelibs-foundation#4795).
    static func spawnAndWait(_ arguments: [String]) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var pid: pid_t = 0
                let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
                defer { for argument in argv { free(argument) } }
                // Only stdin/out/err are inherited: a daemon started by the program (pg_ctlcluster
                // starts postgres) must not keep the descriptors Foundation's Process uses to see its
                // own children exit, or a concurrent test's process never looks finished.
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                // (glibc ignores closing a descriptor that is not open.)
                for descriptor in 3..<Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 4096)) {
                    posix_spawn_file_actions_addclose(&actions, descriptor)
                }
                guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                continuation.resume(returning: (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1)
            }
        }
    }
}
