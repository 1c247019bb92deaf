import Foundation
import PushMediaQueue
import PushMediaWorker
import Testing

/// `enqueue` streams: folders are walked and put on the queue a chunk at a time.
@Suite("Enqueue in chunks")
struct EnqueueTests {
    /// A folder of empty files (enqueue never reads them): `root/in/a/...`.
    private static func folder(_ files: [String], in root: URL) throws {
        for file in files {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data([0xFF, 0xD8])))
        }
    }

    @Test("every file of a folder and every named file and URL comes once, in chunks of at most chunkSize, odd names included")
    func chunks() async throws {
        let root = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let inFolder = ["in/a.jpg", "in/b c.jpg", "in/ü.png", "in/sub/d.gif", "in/sub/deeper/e.mp4", "in/.hidden.jpg", "in/.cache/f.jpg"]
        try Self.folder(inFolder + ["single.jpg", "out/x.jpg"], in: root)
        let sources = try CampaignSources.checked(
            [root.appendingPathComponent("in").path, root.appendingPathComponent("single.jpg").path, "https://cdn.example.com/p.jpg"],
            root: root)
        var chunks: [[NewJob]] = []
        try await CampaignSources.forEachChunk(of: sources, campaign: "c", profile: "{}", chunkSize: 2) { chunks.append($0) }
        #expect(chunks.allSatisfy { (1...2).contains($0.count) }, "\(chunks.map(\.count))")
        let all = chunks.flatMap { $0 }
        #expect(all.allSatisfy { $0.campaign == "c" && $0.profile == "{}" })
        #expect(
            all.map(\.source).sorted()
                == ["https://cdn.example.com/p.jpg", "in/a.jpg", "in/b c.jpg", "in/sub/d.gif", "in/sub/deeper/e.mp4", "in/ü.png", "single.jpg"])
        // The file and the URL named one by one share a chunk.
        #expect(chunks.last.map { $0.map(\.source) } == ["single.jpg", "https://cdn.example.com/p.jpg"])
    }

    @Test("a bad argument is refused before anything is walked", arguments: ["missing", "outside", "url"])
    func checkedFirst(kind: String) throws {
        let root = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.folder(["in/a.jpg"], in: root)
        let bad =
            switch kind {
            case "missing": root.appendingPathComponent("in/nope.jpg").path
            case "outside": "/etc/passwd"
            default: "https://"
            }
        #expect(throws: CampaignSources.Failure.self) {
            try CampaignSources.checked([root.appendingPathComponent("in").path, bad], root: root)
        }
    }

    @Test(
        "enqueue of 2,345 files: one JSON array of every job, again: all already known; status counts them; a missing path is exit 2 with nothing enqueued"
    )
    func command() async throws {
        let root = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let names = (0..<2345).map { String(format: "in/%02d/p%05d.jpg", $0 % 7, $0) }
        try Self.folder(names, in: root)
        let queue = "sqlite:" + root.appendingPathComponent("q.sqlite").path
        let arguments = ["enqueue", "--queue", queue, "--campaign", "cat", "--root", root.path, "--max-attempts", "2"]

        let missing = try await Support.run(
            Support.pushmedia, arguments + [root.appendingPathComponent("in").path, root.appendingPathComponent("gone.jpg").path], in: root)
        #expect(missing.status == 2, "\(missing.error)")
        #expect(missing.error.contains("gone.jpg does not exist"), "\(missing.error)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("q.sqlite").path), "nothing enqueued")

        let first = try await Support.run(Support.pushmedia, arguments + ["--json", root.appendingPathComponent("in").path], in: root)
        #expect(first.status == 0, "\(first.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(first.output.utf8)) as? [[String: Any]])
        #expect(rows.count == names.count)
        #expect(Set(rows.compactMap { $0["source"] as? String }) == Set(names))
        #expect(Set(rows.compactMap { $0["id"] as? Int }).count == names.count)
        #expect(rows.allSatisfy { $0["state"] as? String == "queued" && $0["maxAttempts"] as? Int == 2 }, "\(rows.first ?? [:])")

        let again = try await Support.run(Support.pushmedia, arguments + [root.appendingPathComponent("in").path], in: root)
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output.contains("campaign cat: 2345 jobs (2345 waiting to run, 0 already known)"), "\(again.output)")
        #expect(try await Support.jobs(queue, campaign: "cat").count == names.count)

        let status = try await Support.run(Support.pushmedia, ["status", "--queue", queue, "--json"], in: root)
        #expect(status.status == 0, "\(status.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        #expect(report["deadTotal"] as? Int == 0)
        let campaigns = try #require(report["campaigns"] as? [[String: Any]])
        #expect(campaigns.map { $0["total"] as? Int } == [names.count])
    }
}
