import Foundation
import PushMediaModel
import PushMediaQueue
import PushMediaTesting
import Testing

/// Workers as separate processes on a real PostgreSQL queue. The URL comes from
/// PUSHMEDIA_TEST_POSTGRES_URL (scripts/test starts a server); in CI a missing database fails.
@Suite("Workers on PostgreSQL", .enabled(if: Support.postgresConfigured, "PUSHMEDIA_TEST_POSTGRES_URL is not set (run scripts/test)"))
struct PostgresWorkerTests {
    /// The job ids named by log lines.
    func jobIDs(_ lines: [Substring]) -> Set<JobID> {
        Set(
            lines.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("job_id=") }.flatMap { JobID($0.dropFirst("job_id=".count)) }
            })
    }

    /// Lines of a worker's log that record a finished job.
    func outcomes(_ log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains("job_id=") && $0.contains("status=ok") && $0.contains("job finished") }
    }

    @Test("two worker processes on one queue share a batch: every job done once, by one of them")
    func twoWorkers() async throws {
        let url = try #require(try Support.postgresURL())
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(20, in: folder)
        let out = folder.appendingPathComponent("out")
        let enqueued = try await Support.run(
            Support.pushmedia, ["enqueue", "--queue", url, "--campaign", "shared", "--root", input.path, input.path], in: folder)
        #expect(enqueued.status == 0, "\(enqueued.error)")
        #expect(enqueued.output.contains("20 jobs"))

        let arguments = ["worker", "--queue", url, "--out", out.path, "--root", input.path, "--concurrency", "1", "--drain", "--log-level", "info"]
        // Whichever worker claims img001.jpg holds it until the other has finished a job: both
        // work, however late one of them starts on a busy machine.
        let gate = try ItemGate(in: folder, holding: ["img001.jpg"])
        let a = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "a", environment: gate.environment)
        let b = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "b", environment: gate.environment)
        let bothWorked = await a.wait(seconds: 300) {
            guard gate.isHeld("img001.jpg"), let jobs = try? await Support.jobs(url, campaign: "shared") else { return false }
            return jobs.contains { $0.state == .succeeded }
        }
        #expect(bothWorked, "\(a.error)\n\(b.error)")
        gate.open("img001.jpg")
        let statusA = await a.exitStatus(within: 300)
        let statusB = await b.exitStatus(within: 300)
        #expect(statusA == 0 && statusB == 0, "\(a.error)\n\(b.error)")

        let done = try await Support.jobs(url, campaign: "shared")
        #expect(
            done.count == 20 && done.allSatisfy { $0.state == .succeeded && $0.attempts == 1 },
            "\(done.map { "\($0.source) \($0.state) \($0.attempts)" })")
        let (byA, byB) = (outcomes(a.error).count, outcomes(b.error).count)
        #expect(byA + byB == 20, "a did \(byA), b did \(byB)")
        #expect(byA > 0 && byB > 0, "one worker did everything: a \(byA), b \(byB)")

        let manifestFile = folder.appendingPathComponent("manifest.json")
        let assembled = try await Support.run(
            Support.pushmedia,
            ["manifest", "--queue", url, "--campaign", "shared", "--out", manifestFile.path, "--base-url", "https://cdn.example.com/s"],
            in: folder)
        #expect(assembled.status == 0, "\(assembled.error)")
        let manifest = try Manifest.decode(from: Data(contentsOf: manifestFile))
        #expect(manifest.items.count == 20 && Set(manifest.items.map(\.source)).count == 20)
        for attachment in manifest.items.flatMap(\.attachments) {
            #expect(attachment.url == "https://cdn.example.com/s/\(attachment.file)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(attachment.file).path))
        }
    }

    @Test("a worker killed with SIGKILL mid-batch: its jobs are rescued and a new worker finishes all, none twice")
    func killedWorker() async throws {
        let url = try #require(try Support.postgresURL())
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(10, in: folder)
        let out = folder.appendingPathComponent("out")
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", url, "--campaign", "kill", "--root", input.path, input.path], in: folder
            ).status == 0)
        let base = ["worker", "--queue", url, "--out", out.path, "--root", input.path, "--concurrency", "1", "--log-level", "info"]
        // Killed while it holds img004.jpg at the gate, once the three jobs before it are stored as
        // done: some done, one in its hands, the rest queued, however fast the machine.
        let gate = try ItemGate(in: folder, holding: ["img004.jpg"])
        let first = try BackgroundProcess(
            Support.pushmediaTesting, base + ["--lease-seconds", "5"], in: folder, name: "first", environment: gate.environment)
        let progressed = await first.wait(seconds: 300) {
            guard gate.isHeld("img004.jpg"), let jobs = try? await Support.jobs(url, campaign: "kill") else { return false }
            return jobs.filter { $0.state == .succeeded }.count >= 3
        }
        #expect(progressed, "\(first.error)")
        first.signal(SIGKILL)
        _ = await first.exitStatus(within: 60)
        // What the killed worker finished, from the queue (a job can be stored as done a moment
        // before its log line is written); every line it logged is among them.
        let doneByFirst = Set(try await Support.jobs(url, campaign: "kill").filter { $0.state == .succeeded }.map(\.id))
        #expect(doneByFirst.isSuperset(of: jobIDs(outcomes(first.error))) && doneByFirst.count >= 3)

        // The killed worker's lease expires (5 s); the next worker, which looks for expired leases once
        // per lease of its own (5 s), rescues the job and finishes the batch.
        let second = try BackgroundProcess(Support.pushmedia, base + ["--lease-seconds", "5", "--drain"], in: folder, name: "second")
        let status = await second.exitStatus(within: 300)
        #expect(status == 0, "\(second.error)")
        let done = try await Support.jobs(url, campaign: "kill")
        #expect(done.count == 10 && done.allSatisfy { $0.state == .succeeded }, "\(done.map { "\($0.source) \($0.state)" })")
        let doneBySecond = jobIDs(outcomes(second.error))
        #expect(
            doneByFirst.isDisjoint(with: doneBySecond) && doneByFirst.union(doneBySecond) == Set(done.map(\.id)),
            "first \(doneByFirst.sorted()), second \(doneBySecond.sorted())")
        // The held job was rescued from the killed worker's expired lease and done by the second.
        let rescued = done.filter { $0.attempts == 2 }
        #expect(
            rescued.map(\.source) == ["img004.jpg"] && rescued.allSatisfy { job in job.errorHistory.contains { $0.kind == .rescue } },
            "\(done.map { "\($0.source) \($0.attempts)" })")
    }

    @Test("a file that crashes its item process every time: two workers finish the campaign, the job is dead-lettered worker_crashed")
    func poisonFile() async throws {
        let url = try #require(try Support.postgresURL())
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(6, size: "320x240", in: folder)
        let out = folder.appendingPathComponent("out")
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", url, "--campaign", "poison", "--root", input.path, "--max-attempts", "2", input.path],
                in: folder
            ).status == 0)
        var environment = ProcessInfo.processInfo.environment
        environment[ItemHookVariable.crash] = "img004.jpg"
        let arguments = ["worker", "--queue", url, "--out", out.path, "--root", input.path, "--concurrency", "2", "--drain"]
        let a = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "a", environment: environment)
        let b = try BackgroundProcess(Support.pushmediaTesting, arguments, in: folder, name: "b", environment: environment)
        let (statusA, statusB) = (await a.exitStatus(within: 300), await b.exitStatus(within: 300))
        #expect(statusA == 0 && statusB == 0, "\(a.error)\n\(b.error)")
        let jobs = try await Support.jobs(url, campaign: "poison")
        let poison = try #require(jobs.first { $0.source == "img004.jpg" })
        #expect(
            poison.state == .dead && poison.attempts == poison.maxAttempts && poison.lastError?.code == "worker_crashed",
            "\(poison.state) \(poison.attempts) \(String(describing: poison.lastError))")
        #expect(jobs.filter { $0.source != "img004.jpg" }.allSatisfy { $0.state == .succeeded && $0.attempts == 1 })
        let manifestFile = folder.appendingPathComponent("manifest.json")
        let assembled = try await Support.run(
            Support.pushmedia, ["manifest", "--queue", url, "--campaign", "poison", "--out", manifestFile.path], in: folder)
        #expect(assembled.status == 1, "\(assembled.error)")
        let item = try #require(try Manifest.decode(from: Data(contentsOf: manifestFile)).item(source: "img004.jpg"))
        #expect(item.error?.code == .workerCrashed && item.error?.message.contains("SIGSEGV") == true, "\(String(describing: item.error))")
    }

    @Test("a PostgreSQL restart during a run loses nothing")
    func serverRestart() async throws {
        guard let restartURL = ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_POSTGRES_RESTART_URL"],
            let cluster = ProcessInfo.processInfo.environment["PUSHMEDIA_TEST_POSTGRES_RESTART_CLUSTER"]
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("PUSHMEDIA_TEST_POSTGRES_RESTART_URL/_CLUSTER are not set: scripts/test starts a second cluster for this test")
            }
            return
        }
        let url = restartURL + "?prefix=pm_restart_\(UUID().uuidString.prefix(8).lowercased())_"
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(16, in: folder)
        let out = folder.appendingPathComponent("out")
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", url, "--campaign", "restart", "--root", input.path, input.path], in: folder
            ).status == 0)
        // The server restarts while the worker holds img004.jpg at the gate, after three jobs: the
        // restart falls mid-run, with a job in the worker's hands, however fast the machine.
        let gate = try ItemGate(in: folder, holding: ["img004.jpg"])
        let worker = try BackgroundProcess(
            Support.pushmediaTesting,
            ["worker", "--queue", url, "--out", out.path, "--root", input.path, "--concurrency", "1", "--log-level", "info"],
            in: folder, name: "worker", environment: gate.environment)
        let progressed = await worker.wait(seconds: 300) { outcomes(worker.error).count >= 3 && gate.isHeld("img004.jpg") }
        #expect(progressed, "\(worker.error)")
        let parts = cluster.split(separator: " ").map(String.init)
        let restarted = await Support.spawnAndWait(["pg_ctlcluster"] + parts + ["restart"])
        #expect(restarted == 0, "pg_ctlcluster \(cluster) restart exited with \(restarted)")
        gate.open("img004.jpg")

        // The worker reconnects and finishes: wait until every job is finished, then stop it.
        var finished: [Job] = []
        let deadline = Date().addingTimeInterval(240)
        while Date() < deadline {
            finished = (try? await Support.jobs(url, campaign: "restart")) ?? []
            if finished.count == 16 && finished.allSatisfy({ $0.state.isTerminal }) { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        worker.signal(SIGTERM)
        let status = await worker.exitStatus(within: 60)
        #expect(status == 0, "\(worker.error)")
        #expect(
            finished.count == 16 && finished.allSatisfy { $0.state == .succeeded },
            "\(finished.map { "\($0.source) \($0.state) \($0.lastError?.description ?? "")" })")
    }
}

/// URL sources and the metrics endpoint, on the embedded SQLite queue (no database needed).
@Suite("Worker: URL sources, metrics, health check")
struct WorkerEndpointTests {
    @Test("URL sources: downloaded and processed when private addresses are allowed, source_forbidden otherwise")
    func urlSources() async throws {
        let folder = try Support.temporaryFolder()
        let port = 20000 + Int.random(in: 0..<20000)
        let server = try BackgroundProcess(
            "/usr/bin/env",
            [
                "python3", "-u", "-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory",
                Support.packageRoot.appendingPathComponent("Fixtures/photos").path,
            ],
            in: folder, name: "http")
        defer { server.stop() }
        // It prints its banner once it listens.
        #expect(await server.wait(seconds: 120) { server.output.contains("Serving HTTP") }, "\(server.error)")
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        let url = "http://127.0.0.1:\(port)/landscape.jpg"
        for (campaign, allow) in [("allowed", true), ("refused", false)] {
            #expect(try await Support.run(Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", campaign, url], in: folder).status == 0)
            let out = folder.appendingPathComponent("out-\(campaign)")
            let worker = try await Support.run(
                Support.pushmedia,
                ["worker", "--queue", queue, "--out", out.path, "--campaign", campaign, "--drain"] + (allow ? ["--allow-private-sources"] : []),
                in: folder)
            #expect(worker.status == 0, "\(worker.error)")
            let manifestFile = folder.appendingPathComponent("\(campaign).json")
            let assembled = try await Support.run(
                Support.pushmedia, ["manifest", "--queue", queue, "--campaign", campaign, "--out", manifestFile.path], in: folder)
            let item = try #require(try Manifest.decode(from: Data(contentsOf: manifestFile)).items.first)
            #expect(item.source == url)
            if allow {
                #expect(assembled.status == 0 && item.status == .ok && item.attachments.count == 2, "\(item.error?.message ?? "")")
            } else {
                #expect(assembled.status == 1 && item.error?.code == .sourceForbidden, "\(item.error?.message ?? "")")
            }
        }
    }

    @Test("worker --drain --metrics-port serves metrics while it drains (claims timed, the finished job counted), then exits 0 and closes the port")
    func metricsWhileDraining() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Support.images(2, size: "320x240", in: folder)
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", "d", "--root", input.path, input.path], in: folder
            ).status == 0)
        let gate = try ItemGate(in: folder, holding: ["img001.jpg"])
        let port = 20000 + Int.random(in: 0..<20000)
        let worker = try BackgroundProcess(
            Support.pushmediaTesting,
            [
                "worker", "--queue", queue, "--out", folder.appendingPathComponent("out").path, "--root", input.path, "--drain",
                "--concurrency", "2", "--metrics-port", "\(port)",
            ],
            in: folder, name: "worker", environment: gate.environment)
        // Mid-drain (one item held at the gate, the other finished): the metrics are served.
        var body = ""
        let served = await worker.wait(seconds: 120) {
            guard gate.isHeld("img001.jpg") else { return false }
            body =
                (try? await Support.run("/usr/bin/env", ["curl", "-sf", "http://127.0.0.1:\(port)/metrics"], in: folder, timeout: 10))?.output ?? ""
            return body.contains("pushmedia_queue_jobs_total{state=\"succeeded\"} 1")
                && body.contains("pushmedia_queue_claim_duration_bucket{le=\"0.00025\"}")
        }
        #expect(served, "metrics:\n\(body)\nworker:\n\(worker.error)")
        gate.open("img001.jpg")
        #expect(await worker.exitStatus(within: 120) == 0, "\(worker.error)")
        let closed = try await Support.run("/usr/bin/env", ["curl", "-sf", "http://127.0.0.1:\(port)/metrics"], in: folder, timeout: 10)
        #expect(closed.status != 0, "the port is closed once the worker has drained")
    }

    @Test("a worker serves Prometheus metrics; healthcheck passes while it runs, fails without it; SIGTERM stops it cleanly")
    func metrics() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(2, size: "640x480", in: folder)
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", "m", "--root", input.path, input.path], in: folder
            ).status == 0)
        let port = 20000 + Int.random(in: 0..<20000)
        let worker = try BackgroundProcess(
            Support.pushmedia,
            ["worker", "--queue", queue, "--out", folder.appendingPathComponent("out").path, "--root", input.path, "--metrics-port", "\(port)"],
            in: folder, name: "worker")
        var body = ""
        var served = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !served {
            // The gauges refresh every 15 s; the outcome counters as soon as a job ends.
            body =
                (try? await Support.run("/usr/bin/env", ["curl", "-sf", "http://127.0.0.1:\(port)/metrics"], in: folder, timeout: 10))?.output ?? ""
            served =
                body.contains("pushmedia_jobs") && body.contains("pushmedia_bytes_out_total")
                && body.contains("pushmedia_jobs{state=\"succeeded\"} 2")
                // Claims are timed in buckets from 0.25 ms (a claim on an idle queue included).
                && body.contains("pushmedia_queue_claim_duration_bucket{le=\"0.00025\"}")
                && !body.contains("pushmedia_queue_claim_duration_count 0")
            if !served { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(served, "metrics:\n\(body)\nworker:\n\(worker.error)")
        let healthy = try await Support.run(Support.pushmedia, ["healthcheck", "--port", "\(port)"], in: folder)
        #expect(healthy.status == 0, "\(healthy.error)")
        worker.signal(SIGTERM)
        let status = await worker.exitStatus(within: 40)
        #expect(status == 0, "\(worker.error)")
        let unhealthy = try await Support.run(Support.pushmedia, ["healthcheck", "--port", "\(port)"], in: folder)
        #expect(unhealthy.status == 1 && unhealthy.error.contains("unhealthy"))
    }
}
