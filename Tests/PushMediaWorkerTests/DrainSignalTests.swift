import Foundation
import PushMediaModel
import PushMediaQueue
import PushMediaTesting
import Testing

/// `worker --drain` stopped by a signal behaves like `worker`: no more claims, the running jobs
/// finish within the grace period or go back to the queue uncounted; its exit says the drain did
/// not finish.
@Suite("worker --drain and signals")
struct DrainSignalTests {
    @Test(
        "SIGTERM or SIGINT while a job is held past the grace period: it is given back uncounted, the exit says which signal, a rerun drains",
        arguments: [SIGTERM, SIGINT])
    func givenBack(_ signal: Int32) async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (queue, input, gate, worker) = try await Self.holding(grace: 1, in: folder)
        worker.signal(signal)
        let status = await worker.exitStatus(within: 120)
        #expect(worker.process.terminationReason == .exit && status == 128 + signal, "\(status) \(worker.error)")
        #expect(worker.error.contains("job released at shutdown") && worker.error.contains("before the queue was drained"), "\(worker.error)")
        let jobs = try await Support.jobs(queue, campaign: "d")
        #expect(jobs.count == 2 && jobs.allSatisfy { $0.state == .queued && $0.attempts == 0 }, "\(jobs)")

        let rerun = try await Support.run(Support.pushmedia, Self.worker(queue, input, folder), in: folder)
        #expect(rerun.status == 0, "\(rerun.error)")
        let done = try await Support.jobs(queue, campaign: "d")
        #expect(done.count == 2 && done.allSatisfy { $0.state == .succeeded && $0.attempts == 1 }, "\(done)")
    }

    @Test("SIGTERM while a job runs within the grace period: that job finishes, nothing more is claimed, exit 143")
    func finishedWithinGrace() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (queue, _, gate, worker) = try await Self.holding(grace: 300, in: folder)
        worker.signal(SIGTERM)
        // The worker has stopped claiming before the held job may go on.
        #expect(await worker.wait(seconds: 120) { worker.error.contains("stopping the drain") }, "\(worker.error)")
        gate.open("img001.jpg")
        let status = await worker.exitStatus(within: 300)
        #expect(status == 128 + SIGTERM, "\(status) \(worker.error)")
        let jobs = try await Support.jobs(queue, campaign: "d")
        let finished = try #require(jobs.first { $0.source == "img001.jpg" })
        let untouched = try #require(jobs.first { $0.source == "img002.jpg" })
        #expect(finished.state == .succeeded && finished.attempts == 1, "\(finished)")
        #expect(untouched.state == .queued && untouched.attempts == 0, "\(untouched)")
    }

    /// `worker --drain --grace-period grace` on the campaign, once it holds img001.jpg at the gate.
    static func holding(grace: Int, in folder: URL) async throws -> (queue: String, input: URL, gate: ItemGate, worker: BackgroundProcess) {
        let (queue, input) = try await Self.campaign(in: folder)
        let gate = try ItemGate(in: folder, holding: ["img001.jpg"])
        let worker = try BackgroundProcess(
            Support.pushmediaTesting, Self.worker(queue, input, folder) + ["--grace-period", "\(grace)"], in: folder, name: "worker",
            environment: gate.environment)
        #expect(await worker.wait(seconds: 300) { gate.isHeld("img001.jpg") }, "\(worker.error)")
        return (queue, input, gate, worker)
    }

    /// Two images enqueued as campaign `d` on a SQLite queue in `folder`.
    static func campaign(in folder: URL) async throws -> (queue: String, input: URL) {
        let input = try await Support.images(2, size: "320x240", in: folder)
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        let enqueued = try await Support.run(
            Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", "d", "--root", input.path, input.path], in: folder)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        return (queue, input)
    }

    /// `worker --drain` on one job at a time, jobs claimed in order (img001.jpg first).
    static func worker(_ queue: String, _ input: URL, _ folder: URL) -> [String] {
        [
            "worker", "--queue", queue, "--out", folder.appendingPathComponent("out").path, "--root", input.path, "--campaign", "d",
            "--drain", "--concurrency", "1", "--log-level", "info",
        ]
    }
}
