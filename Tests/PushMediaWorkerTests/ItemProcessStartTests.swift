import Foundation
import Logging
import PushMedia
import PushMediaModel
import PushMediaTesting
import PushMediaWorker
import Testing

/// How item processes start: the memory limit they may grow by (refused below what works), the
/// start deadline (a child that never gets ready costs its item's attempt, not a hang), and the
/// priority they take (the supervisor's, on both ways a child is made).
@Suite("Item processes: start, memory limit, priority")
struct ItemProcessStartTests {
    /// A folder `in` with a photo, a GIF and a movie of the fixtures.
    func mixedInput(in folder: URL) throws -> URL {
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for fixture in ["photos/landscape.jpg", "graphics/animated.gif", "video/portrait.mov"] {
            try FileManager.default.copyItem(
                at: Support.fixtures.appendingPathComponent(fixture), to: input.appendingPathComponent((fixture as NSString).lastPathComponent))
        }
        return input
    }

    @Test("an item memory limit below the minimum is refused at start (exit 2, the minimum named), from the flag or the environment")
    func memoryLimitBelowTheMinimumIsRefused() async throws {
        let folder = try Support.temporaryFolder()
        let input = try mixedInput(in: folder)
        let minimum = ItemProcessServer.minimumMemoryLimitMB
        let runs: [(name: String, arguments: [String], environment: [String: String])] = [
            ("flag-150", ["--item-memory-limit", "150"], [:]),
            ("flag-below", ["--item-memory-limit", "\(minimum - 1)"], [:]),
            ("environment-150", [], ["PUSHMEDIA_ITEM_MEMORY_LIMIT_MB": "150"]),
        ]
        for (name, arguments, variables) in runs {
            let out = folder.appendingPathComponent("out-\(name)")
            var environment = ProcessInfo.processInfo.environment
            environment.merge(variables) { _, new in new }
            let run = try BackgroundProcess(
                Support.pushmedia, ["process", input.path, "--out", out.path] + arguments, in: folder, name: name, environment: environment)
            let status = await run.exitStatus(within: 300)
            #expect(run.process.terminationReason == .exit && status == 2, "\(name): \(status) \(run.error)")
            #expect(run.error.contains("at least \(minimum) MB"), "\(name): \(run.error)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "\(name): refused before the output was made")
        }
    }

    @Test("at the minimum item memory limit a photo, a GIF and a movie come out ok")
    func minimumMemoryLimitWorks() async throws {
        let folder = try Support.temporaryFolder()
        let input = try mixedInput(in: folder)
        let out = folder.appendingPathComponent("out")
        for forkServer in ["1", "0"] {
            var environment = ProcessInfo.processInfo.environment
            environment["PUSHMEDIA_ITEM_FORK_SERVER"] = forkServer
            let run = try BackgroundProcess(
                Support.pushmedia,
                ["process", input.path, "--out", out.path + "-\(forkServer)", "--item-memory-limit", "\(ItemProcessServer.minimumMemoryLimitMB)"],
                in: folder, name: "run-\(forkServer)", environment: environment)
            let status = await run.exitStatus(within: 300)
            #expect(run.process.terminationReason == .exit && status == 0, "fork server \(forkServer): \(status) \(run.error)")
            let manifest = try Manifest.decode(from: Data(contentsOf: URL(fileURLWithPath: out.path + "-\(forkServer)/manifest.json")))
            #expect(manifest.items.map(\.source).sorted() == ["animated.gif", "landscape.jpg", "portrait.mov"])
            #expect(
                manifest.items.allSatisfy { $0.status == .ok && !$0.attachments.isEmpty },
                "\(manifest.items.map { "\($0.source) \($0.status) \(String(describing: $0.error))" })")
        }
    }

    @Test("an item process that never gets ready is killed at the start deadline: its item fails worker_crashed instead of waiting")
    func stuckStartIsKilledAtTheStartDeadline() async throws {
        let folder = try Support.temporaryFolder()
        // The child's start is held where it starts libvips, so it never says it has started.
        let gate = try ItemGate(in: folder, holding: [ItemHookStep.prepare.rawValue])
        // `pushmedia-testing item-process` with the gate's variables, through env(1): this
        // process's own environment is every test's.
        let pool = ItemProcessPool(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "\(ItemHookVariable.gate)=\(gate.folder.path)", "\(ItemHookVariable.hold)=\(ItemHookStep.prepare.rawValue)",
                Support.pushmediaTesting, "item-process",
            ],
            forkServer: false, startDeadline: .seconds(2), logger: Logger(label: "test"))
        await pool.start(1)
        let held = await wait(seconds: 300) { gate.isHeld(ItemHookStep.prepare.rawValue) }
        #expect(held, "the child reached its start")
        let child = try #require(gate.pid(ItemHookStep.prepare.rawValue))
        let photo = Support.fixtures.appendingPathComponent("photos/landscape.jpg")
        let item = await pool.process(
            InputFile(path: photo.path, source: "landscape.jpg"), profile: .default, outputDirectory: folder.appendingPathComponent("out"))
        await pool.close()
        #expect(
            item.status == .failed && item.error?.code == .workerCrashed && item.error?.message.contains("had not started within 2 s") == true,
            "\(String(describing: item.error))")
        #expect(kill(child, 0) != 0, "the held child was killed")
    }

    @Test("item processes take the supervisor's nice value, forked by the fork server or started anew")
    func itemProcessesTakeTheSupervisorsPriority() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "320x240", in: folder)
        for forkServer in ["1", "0"] {
            let out = folder.appendingPathComponent("out-\(forkServer)")
            let gate = try ItemGate(in: folder.appendingPathComponent("gate-\(forkServer)"), holding: ["img001.jpg"])
            var environment = gate.environment
            environment["PUSHMEDIA_ITEM_FORK_SERVER"] = forkServer
            let run = try BackgroundProcess(
                "/usr/bin/nice", ["-n", "15", Support.pushmediaTesting, "process", input.path, "--out", out.path, "--jobs", "1"], in: folder,
                name: "run-\(forkServer)", environment: environment)
            #expect(await run.wait(seconds: 300) { gate.pid("img001.jpg") != nil }, "\(run.error)")
            let child = try #require(gate.pid("img001.jpg"))
            let supervisor = run.process.processIdentifier
            #expect(ItemIsolationTests.parent(of: child) == supervisor)
            // nice(1) added 15 to the nice value of the thread that started it (one of this
            // process's, whatever its own), so the supervisor runs well above Dispatch's 0, -2, -4.
            let expected = try #require(Self.nice(of: supervisor))
            #expect(expected >= 11, "\(expected)")
            #expect(Self.nice(of: child) == expected, "fork server \(forkServer): the child's nice value")
            gate.open("img001.jpg")
            let status = await run.exitStatus(within: 300)
            #expect(run.process.terminationReason == .exit && status == 0, "\(status) \(run.error)")
        }
    }

    /// The nice value of `pid`'s main thread (field 19 of /proc/PID/stat), nil once it is gone.
    static func nice(of pid: pid_t) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else {
            return nil
        }
        // The fields after the command's name (field 2) start at field 3.
        let fields = stat[stat.index(after: name)...].split(separator: " ")
        return fields.count > 16 ? Int32(fields[16]) : nil
    }

    /// Waits until `condition` holds (checked every 50 ms) or `seconds` pass.
    func wait(seconds: Double, until condition: () -> Bool) async -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }
}
