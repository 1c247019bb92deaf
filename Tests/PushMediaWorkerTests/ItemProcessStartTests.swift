import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

/// How item processes start: the priority they take (the supervisor's, on both ways a child is
/// made).
@Suite("Item processes: priority")
struct ItemProcessStartTests {
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
}
