import Foundation
import PushMediaModel
import PushMediaQueue
import PushMediaTesting
import Testing

/// `pushmedia process` runs through the embedded SQLite queue: killed and run again, it resumes.
@Suite("process through the embedded queue")
struct ProcessResumeTests {
    @Test("killed with SIGKILL mid-batch and run again: every file once, finished files not redone")
    func resumeAfterKill() async throws {
        let folder = try Support.temporaryFolder()
        let count = 24
        let input = try await Support.images(count, in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path, "--jobs", "1"]

        let queuePath = out.appendingPathComponent(".pushmedia/queue.sqlite").path
        let campaign = "process:" + input.resolvingSymlinksInPath().path

        // Killed while img005.jpg is held at the gate and the queue file itself records the 4
        // jobs before it finished (a progress line is printed when an item is done, a moment
        // before its job is marked finished): some files done and some not, however fast the machine.
        let gate = try ItemGate(in: folder, holding: ["img005.jpg"])
        let first = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "first", environment: gate.environment)
        let started = await first.wait(seconds: 300) {
            guard gate.isHeld("img005.jpg"), FileManager.default.fileExists(atPath: queuePath) else { return !first.process.isRunning }
            let jobs = try? await Support.jobs("sqlite:" + queuePath, campaign: campaign)
            return (jobs?.filter { $0.state == .succeeded }.count ?? 0) >= 4
        }
        #expect(started && first.process.isRunning, "the first run did not finish 4 jobs: \(first.error)")
        first.signal(SIGKILL)
        _ = await first.exitStatus(within: 60)
        #expect(first.process.terminationReason == .uncaughtSignal)

        // What the killed run had finished, read from the queue file itself.
        let before = try await Support.jobs("sqlite:" + queuePath, campaign: campaign)
        let finishedBefore = before.filter { $0.state == .succeeded }
        #expect(
            finishedBefore.count >= 4 && !finishedBefore.contains { $0.source == "img005.jpg" },
            "\(finishedBefore.map(\.source)) finished before the kill")
        #expect(before.contains { $0.state == .running } || finishedBefore.count + before.filter { $0.state == .queued }.count == count)

        let second = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(second.status == 0, "\(second.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == (1...count).map { String(format: "img%03d.jpg", $0) })
        #expect(manifest.items.allSatisfy { $0.status == .ok && $0.attachments.count == 2 })

        let after = try await Support.jobs("sqlite:" + queuePath, campaign: campaign)
        #expect(after.count == count && after.allSatisfy { $0.state == .succeeded })
        for job in finishedBefore {
            let again = try #require(after.first { $0.id == job.id })
            #expect(again.finishedAt == job.finishedAt && again.attempts == job.attempts, "\(job.source) was processed again")
        }
        // Every output file the manifest names exists; the second run listed every file once.
        for attachment in manifest.items.flatMap(\.attachments) {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(attachment.file).path))
        }
        #expect(second.error.split(separator: "\n").filter { $0.hasPrefix("[") }.count == count)
    }

    @Test("a file replaced after its job finished is processed again on the next run, also with an older modification time")
    func changedFileIsRedone() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(2, size: "640x480", in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path]
        #expect(try await Support.run(Support.pushmedia, arguments, in: folder).status == 0)
        let first = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        // Replace img001.jpg by img002.jpg's bytes (a newer modification time).
        try await Task.sleep(for: .milliseconds(1100))
        let one = input.appendingPathComponent("img001.jpg")
        try FileManager.default.removeItem(at: one)
        try FileManager.default.copyItem(at: input.appendingPathComponent("img002.jpg"), to: one)
        #expect(try await Support.run(Support.pushmedia, arguments, in: folder).status == 0)
        let second = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(first.item(source: "img001.jpg")?.sourceSHA256 != second.item(source: "img001.jpg")?.sourceSHA256)
        #expect(second.item(source: "img001.jpg")?.sourceSHA256 == second.item(source: "img002.jpg")?.sourceSHA256)

        // Replace img002.jpg by a file of another size with a modification time a day old, as
        // unpacking an archive or `cp -p` leaves it.
        let two = input.appendingPathComponent("img002.jpg")
        let other = try await Support.images(1, size: "320x240", in: folder.appendingPathComponent("other"))
        try FileManager.default.removeItem(at: two)
        try FileManager.default.copyItem(at: other.appendingPathComponent("img001.jpg"), to: two)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-86_400)], ofItemAtPath: two.path)
        #expect(try await Support.run(Support.pushmedia, arguments, in: folder).status == 0)
        let third = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let replaced = try #require(third.item(source: "img002.jpg"))
        #expect(replaced.sourceBytes == (try FileManager.default.attributesOfItem(atPath: two.path)[.size] as? NSNumber)?.intValue)
        #expect(replaced.sourceSHA256 != second.item(source: "img002.jpg")?.sourceSHA256)
        #expect(replaced.attachment(.expanded)?.width == 320, "the expanded image comes from the 320×240 replacement")
    }

    @Test("two process runs on one output folder: the second is refused while the first holds it")
    func oneRunPerOutputFolder() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(10, in: folder)
        let out = folder.appendingPathComponent("out")
        // The first run holds img001.jpg at the gate: it is mid-run, holding the folder, until the
        // second has been refused.
        let gate = try ItemGate(in: folder, holding: ["img001.jpg"])
        let first = try BackgroundProcess(
            Support.pushmediaTesting, ["process", input.path, "--out", out.path, "--jobs", "1"], in: folder, name: "first",
            environment: gate.environment)
        #expect(await first.wait(seconds: 300) { gate.isHeld("img001.jpg") }, "\(first.error)")
        let second = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path], in: folder)
        #expect(second.status == 2 && second.error.contains("another pushmedia process"), "\(second.status) \(second.error)")
        gate.open("img001.jpg")
        let status = await first.exitStatus(within: 300)
        #expect(status == 0, "\(first.error)")
    }

    @Test(
        "SIGTERM or SIGINT mid-item: the item goes back uncounted, the exit says which signal, and a rerun completes", arguments: [SIGTERM, SIGINT])
    func stoppedBySignal(_ signal: Int32) async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(3, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path, "--jobs", "1"]
        let gate = try ItemGate(in: folder, holding: ["img002.jpg"])
        let first = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "first", environment: gate.environment)
        #expect(await first.wait(seconds: 300) { gate.isHeld("img002.jpg") }, "\(first.error)")
        first.signal(signal)
        let status = await first.exitStatus(within: 300)
        #expect(first.process.terminationReason == .exit && status == 128 + signal, "\(status) \(first.error)")
        #expect(first.error.contains("given back"), "\(first.error)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path), "no manifest of a half run")
        let jobs = try await Support.jobs(
            "sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: "process:" + input.resolvingSymlinksInPath().path)
        let held = try #require(jobs.first { $0.source == "img002.jpg" })
        #expect(held.state == .queued && held.attempts == 0, "\(held.state) \(held.attempts)")

        let second = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(second.status == 0, "\(second.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.count == 3 && manifest.items.allSatisfy { $0.status == .ok })
    }

    @Test(
        "--in-process: a file that crashes the process every time costs an attempt per run; after 3 it is failed worker_crashed and the batch finishes"
    )
    func poisonFileEndsAfterItsAttempts() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(4, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        var environment = ProcessInfo.processInfo.environment
        environment[ItemHookVariable.crash] = "img002.jpg"
        var runs: [(reason: Process.TerminationReason, status: Int32)] = []
        var last: BackgroundProcess?
        // A run that dies on the file is run again, as a user (or a CI retry) would.
        while runs.count < 6 {
            let run = try BackgroundProcess(
                Support.pushmediaTesting, ["process", input.path, "--out", out.path, "--jobs", "1", "--in-process"], in: folder,
                name: "run\(runs.count)", environment: environment)
            let status = await run.exitStatus(within: 300)
            runs.append((run.process.terminationReason, status))
            last = run
            if run.process.terminationReason == .exit { break }
        }
        // Each run before the last died on img002.jpg (its attempts 1, 2 and 3); the last found
        // it out of attempts and finished the batch.
        #expect(runs.count <= 4 && runs.last?.reason == .exit && runs.last?.status == 1, "\(runs) \(last?.error ?? "")")
        #expect(runs.dropLast().allSatisfy { $0.reason == .uncaughtSignal && $0.status == SIGSEGV }, "\(runs)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == ["img001.jpg", "img002.jpg", "img003.jpg", "img004.jpg"])
        let poison = try #require(manifest.item(source: "img002.jpg"))
        #expect(poison.status == .failed && poison.error?.code == .workerCrashed, "\(String(describing: poison.error))")
        #expect(poison.error?.message.contains("3 attempts") == true, "\(poison.error?.message ?? "")")
        #expect(manifest.items.filter { $0.source != "img002.jpg" }.allSatisfy { $0.status == .ok })
    }

    @Test("a broken link (missing_input) and a named pipe are failed items at their first attempt; the progress shows each file once")
    func unreadableInputs() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "640x480", in: folder)
        try FileManager.default.createSymbolicLink(
            atPath: input.appendingPathComponent("gone.jpg").path, withDestinationPath: "/nonexistent/gone.jpg")
        #expect(mkfifo(input.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        let out = folder.appendingPathComponent("out")
        let run = try await Support.run(Support.pushmedia, ["process", input.path, "--out", out.path], in: folder, timeout: 120)
        #expect(run.status == 1, "\(run.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == ["gone.jpg", "img001.jpg", "pipe.jpg"])
        let gone = try #require(manifest.item(source: "gone.jpg"))
        #expect(gone.error?.code == .missingInput)
        #expect(gone.error?.message == "cannot open gone.jpg: broken symbolic link")
        #expect(manifest.item(source: "pipe.jpg")?.error?.code == .unsupportedType)
        #expect(manifest.item(source: "img001.jpg")?.status == .ok)
        // Neither is retried: a retry cannot make a link point somewhere or a pipe a file.
        let jobs = try await Support.jobs(
            "sqlite:" + out.appendingPathComponent(".pushmedia/queue.sqlite").path, campaign: "process:" + input.resolvingSymlinksInPath().path)
        #expect(jobs.filter { $0.source != "img001.jpg" }.allSatisfy { $0.attempts == 1 && $0.state == .failed }, "\(jobs)")
        // The progress shows each file once: [1/3] … [3/3].
        let progress = run.error.split(separator: "\n").filter { $0.hasPrefix("[") }
        #expect(progress.map { $0.prefix(5) }.sorted() == ["[1/3]", "[2/3]", "[3/3]"], "\(progress)")
    }

    @Test("a subfolder that cannot be listed is a failed item (unreadable_input); the rest is processed")
    func unlistableSubfolder() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "640x480", in: folder)
        let sub = input.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: input.appendingPathComponent("img001.jpg"), to: sub.appendingPathComponent("hidden.jpg"))
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for (url, mode) in [(folder, 0o755), (out, 0o777), (sub, 0o000)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sub.path) }
        // Root lists any folder: run as nobody then, so the permission bits count (with a copy of
        // the binary in the temporary folder, which nobody can reach wherever the clone is).
        var command = [Support.pushmedia, "process", input.path, "--out", out.path]
        if getuid() == 0 {
            let binary = folder.appendingPathComponent("pushmedia")
            try FileManager.default.copyItem(atPath: Support.pushmedia, toPath: binary.path)
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + command.dropFirst()
        }
        let run = try await Support.run(command[0], Array(command.dropFirst()), in: folder, timeout: 120)
        #expect(run.status == 1, "\(run.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(manifest.items.map(\.source) == ["img001.jpg", "sub"])
        #expect(manifest.item(source: "img001.jpg")?.status == .ok)
        let failed = try #require(manifest.item(source: "sub"))
        #expect(failed.error?.code == .unreadableInput)
        #expect(failed.error?.message.hasPrefix("sub is a folder that cannot be listed: Permission denied") == true, "\(failed.error?.message ?? "")")
    }
}
