import Crypto
import Foundation
import PushMediaModel
import PushMediaObjectStore
import PushMediaQueue
import PushMediaWorker
import Testing

/// `--out s3://…` end to end: the `pushmedia` binary against a real S3-compatible server (moto's
/// server mode, started by scripts/test; its address in PUSHMEDIA_TEST_S3_ENDPOINT). Every test
/// makes its own bucket and compares what the bucket holds with the manifest, byte for byte.
@Suite("Outputs on S3-compatible storage", .enabled(if: S3Fixture.enabled, "PUSHMEDIA_TEST_S3_ENDPOINT is not set (run scripts/test)"))
struct S3OutputTests {
    @Test("process Fixtures --out s3://…: the bucket holds exactly the manifest's files, byte for byte, then the manifest and preview")
    func processIntoBucket() async throws {
        let s3 = try await S3Fixture()
        let folder = try Support.temporaryFolder()
        let state = folder.appendingPathComponent("state")
        let fixtures = Support.packageRoot.appendingPathComponent("Fixtures")
        let run = try await s3.run(
            [
                "process", fixtures.path, "--out", "s3://\(s3.bucket)/campaigns/spring", "--state", state.path,
                "--base-url", "https://cdn.example.com/spring", "--jobs", "2",
            ], in: folder)
        // Five fixtures in Fixtures/broken fail on purpose.
        #expect(run.status == 1, "\(run.error)")
        #expect(run.output.contains("manifest: s3://\(s3.bucket)/campaigns/spring/manifest.json"), "\(run.output)")

        let manifest = try Manifest.decode(from: try await s3.client.get(bucket: s3.bucket, key: "campaigns/spring/manifest.json"))
        let inputs = FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: [.isRegularFileKey])!
            .compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        #expect(manifest.items.count == inputs.count)
        #expect(manifest.items.filter { $0.status == .failed }.allSatisfy { $0.error != nil && $0.source.hasPrefix("broken/") })
        try await s3.expectStored(manifest, prefix: "campaigns/spring", extra: ["manifest.json", "manifest.ndjson", "preview.html"])
        for attachment in manifest.items.flatMap(\.attachments) {
            #expect(attachment.url == "https://cdn.example.com/spring/\(attachment.file)")
        }
        let page = try #require(try await s3.client.head(bucket: s3.bucket, key: "campaigns/spring/preview.html"))
        #expect(page.contentType == "text/html; charset=utf-8" && page.cacheControl == "no-cache")
        // Nothing but the embedded queue stays on local disk.
        let local = try FileManager.default.subpathsOfDirectory(atPath: state.path)
        #expect(local.allSatisfy { $0.hasPrefix("queue.sqlite") || $0 == "lock" }, "\(local)")
    }

    @Test("two workers on PostgreSQL share a campaign into one bucket: every object stored once, as the manifest says")
    func twoWorkers() async throws {
        let s3 = try await S3Fixture()
        let url = try #require(try Support.postgresURL(), "PUSHMEDIA_TEST_POSTGRES_URL is not set (run scripts/test)")
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(12, size: "1200x800", in: folder)
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", url, "--campaign", "s3", "--root", input.path, input.path], in: folder
            ).status == 0)
        let arguments = ["worker", "--queue", url, "--out", "s3://\(s3.bucket)/c", "--root", input.path, "--concurrency", "1", "--drain"]
        // Their own temporary folder, to see that no job folder is left in it.
        let scratch = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var environment = s3.environment
        environment["TMPDIR"] = scratch.path
        let a = try BackgroundProcess(Support.pushmedia, arguments, in: folder, name: "a", environment: environment)
        let b = try BackgroundProcess(Support.pushmedia, arguments, in: folder, name: "b", environment: environment)
        let (statusA, statusB) = (await a.exitStatus(within: 300), await b.exitStatus(within: 300))
        #expect(statusA == 0 && statusB == 0, "\(a.error)\n\(b.error)")
        let jobs = try await Support.jobs(url, campaign: "s3")
        #expect(jobs.count == 12 && jobs.allSatisfy { $0.state == .succeeded }, "\(jobs.map { "\($0.source) \($0.state)" })")
        let manifestFile = folder.appendingPathComponent("manifest.json")
        #expect(
            try await Support.run(
                Support.pushmedia, ["manifest", "--queue", url, "--campaign", "s3", "--out", manifestFile.path], in: folder
            ).status == 0)
        let manifest = try Manifest.decode(from: Data(contentsOf: manifestFile))
        #expect(manifest.items.count == 12 && manifest.items.allSatisfy { $0.status == .ok && $0.attachments.count == 3 })
        try await s3.expectStored(manifest, prefix: "c", extra: [])
        // Nothing stays on the workers' local disk past the job.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix("pushmedia-job-") } == [])
    }

    @Test("the server stops mid-run and comes back: every item ends ok or failed with a code, no object half written")
    func serverDownMidRun() async throws {
        let s3 = try await S3Fixture()
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(16, size: "1600x1000", in: folder)
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        #expect(
            try await Support.run(
                Support.pushmedia, ["enqueue", "--queue", queue, "--campaign", "down", "--root", input.path, input.path], in: folder
            ).status == 0)
        let port = 20000 + Int.random(in: 0..<20000)
        // The server goes down when the 7th object PUT arrives: six reached it (three items' two
        // attachments), the 7th and those after it meet the outage, however fast the machine is.
        let proxy = try s3.proxy(port: port, in: folder, name: "proxy-1", cutAtPut: 7)
        var environment = s3.environment
        environment["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:\(port)"
        let worker = try BackgroundProcess(
            Support.pushmedia,
            [
                "worker", "--queue", queue, "--out", "s3://\(s3.bucket)/d", "--root", input.path, "--concurrency", "2", "--drain", "--log-level",
                "info",
            ],
            in: folder, name: "worker", environment: environment)
        let cut = await proxy.exitStatus(within: 300)
        #expect(cut == 0 && proxy.output.contains("cut"), "the proxy was not cut: \(proxy.output)\n\(worker.error)")
        // The server stays down until an item's store has failed and gone back to the queue
        // (logged once the queue holds it), then comes back.
        let storeFailed = await worker.wait(seconds: 300) { worker.error.contains("error_code=store_failed") }
        #expect(storeFailed, "\(worker.error)")
        let again = try s3.proxy(port: port, in: folder, name: "proxy-2")
        defer { again.stop() }
        let status = await worker.exitStatus(within: 300)
        #expect(status == 0, "\(worker.error)")

        let jobs = try await Support.jobs(queue, campaign: "down")
        #expect(jobs.count == 16 && jobs.allSatisfy { $0.state.isTerminal }, "\(jobs.map { "\($0.source) \($0.state)" })")
        let manifest = ManifestAssembler.items(from: jobs, baseURL: nil)
        #expect(manifest.allSatisfy { $0.status == .ok || $0.error?.code != nil })
        #expect(manifest.filter { $0.status == .failed }.allSatisfy { $0.error?.code == .storeFailed }, "\(manifest.compactMap(\.error))")
        // The outage lasted until at least one attempt failed with store_failed and went back to the queue.
        #expect(jobs.contains { $0.errorHistory.contains { $0.code == ErrorCode.storeFailed.rawValue } }, "\(worker.error)")
        let ok = Manifest(profile: .default, items: manifest.filter { $0.status == .ok })
        try await s3.expectStored(ok, prefix: "d", extra: [], exact: false)
        // Every object in the bucket is whole: its bytes hash to the name they were stored under.
        for object in try await s3.client.listObjects(bucket: s3.bucket, prefix: "d/") {
            let data = try await s3.client.get(bucket: s3.bucket, key: object.key)
            let name = object.key.split(separator: "/").last!
            #expect(S3Fixture.sha256(data).hasPrefix(name.prefix(16)), "\(object.key) is not whole")
        }
    }

    @Test("without --state the queue lives under XDG_STATE_HOME; run again, it resumes and the bucket is unchanged")
    func stateFolder() async throws {
        let s3 = try await S3Fixture()
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(3, size: "640x480", in: folder)
        var environment = s3.environment
        environment["XDG_STATE_HOME"] = folder.appendingPathComponent("xdg").path
        environment["PUSHMEDIA_STATE"] = nil
        let arguments = ["process", input.path, "--out", "s3://\(s3.bucket)/p/q"]
        let first = try await s3.run(arguments, in: folder, environment: environment)
        #expect(first.status == 0, "\(first.error)")
        let queue = folder.appendingPathComponent("xdg/pushmedia/s3/\(s3.bucket)/p/q/queue.sqlite")
        #expect(FileManager.default.fileExists(atPath: queue.path))
        let before = try await s3.client.listObjects(bucket: s3.bucket, prefix: "p/q/")
        let second = try await s3.run(arguments, in: folder, environment: environment)
        #expect(second.status == 0 && second.output.contains("3 items: 3 ok"), "\(second.output)\n\(second.error)")
        #expect(try await s3.client.listObjects(bucket: s3.bucket, prefix: "p/q/") == before)
        #expect(before.count == 3 * 3 + 3, "three files per photo (thumbnail, expanded, Android), manifest.json, manifest.ndjson, preview.html")
    }

    @Test("a missing bucket, missing credentials and a server that does not answer: exit 2 before any work")
    func refusedAtStart() async throws {
        let s3 = try await S3Fixture()
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(1, size: "320x240", in: folder)
        let missing = try await s3.run(
            [
                "process", input.path, "--out", "s3://pm-missing-\(UUID().uuidString.prefix(6).lowercased())/x",
                "--state", folder.appendingPathComponent("s").path,
            ], in: folder)
        #expect(missing.status == 2 && missing.error.contains("the bucket does not exist"), "\(missing.error)")
        var noKeys = s3.environment
        noKeys["AWS_SECRET_ACCESS_KEY"] = ""
        let unsigned = try await s3.run(
            ["worker", "--queue", "sqlite:" + folder.appendingPathComponent("q").path, "--out", "s3://\(s3.bucket)"],
            in: folder, environment: noKeys)
        #expect(unsigned.status == 2 && unsigned.error.contains("AWS_SECRET_ACCESS_KEY"), "\(unsigned.error)")
        var down = s3.environment
        down["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:9"
        let unreachable = try await s3.run(["process", input.path, "--out", "s3://\(s3.bucket)"], in: folder, environment: down)
        #expect(unreachable.status == 2 && unreachable.error.contains("no answer from 127.0.0.1:9"), "\(unreachable.error)")
        #expect(try await s3.client.listObjects(bucket: s3.bucket, prefix: "").isEmpty)
    }
}
