import Foundation
import PushMedia
import PushMediaModel
import Testing

/// `process` removes only what it wrote into its output folder, and never runs with outputs
/// and inputs in one folder: a person's files and another campaign's stay, whatever their names.
@Suite("process deletes only what it wrote")
struct OutputOwnershipTests {
    static func summary(_ run: (status: Int32, output: String, error: String)) throws -> [String: Any] {
        let last = try #require(run.output.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    static func exists(_ folder: URL, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
    }

    @Test(
        "--out that is, lies inside or holds the input folder is exit 2 saying so; a hidden folder inside is fine and reruns never read its outputs")
    func overlappingFolders() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(2, size: "320x240", in: folder)
        // An input named as PushMedia names its outputs.
        let lookalike = "0000000000000001-thumb.jpg"
        try FileManager.default.copyItem(at: input.appendingPathComponent("img001.jpg"), to: input.appendingPathComponent(lookalike))
        let cases: [(out: String, input: String, says: String)] = [
            (input.path, input.path, "is the input folder itself"),
            (input.appendingPathComponent("out").path, input.path, "lies inside the input folder"),
            (input.path + "/", input.path, "is the input folder itself"),
            (folder.path, input.path, "lies inside --out"),
        ]
        for (out, inputPath, says) in cases {
            let run = try await Support.run(Support.pushmedia, ["process", inputPath, "--out", out, "--jobs", "1"], in: folder)
            #expect(run.status == 2 && run.error.contains(says), "--out \(out): \(run.status) \(run.error)")
        }
        #expect(!Self.exists(input, "manifest.json") && !Self.exists(input, "out"))
        // A shard folder of the output folder as the input.
        let out = folder.appendingPathComponent("published")
        let shard = out.appendingPathComponent("ab")
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: input.appendingPathComponent("img002.jpg"), to: shard.appendingPathComponent("x.jpg"))
        let shardRun = try await Support.run(Support.pushmedia, ["process", shard.path, "--out", out.path], in: folder)
        #expect(shardRun.status == 2 && shardRun.error.contains("lies inside --out"), "\(shardRun.error)")
        // The worker holds to the same rule for its --root.
        let worker = try await Support.run(
            Support.pushmedia,
            ["worker", "--queue", "sqlite:" + folder.appendingPathComponent("q.sqlite").path, "--out", input.path, "--root", input.path, "--drain"],
            in: folder)
        #expect(worker.status == 2 && worker.error.contains("is --root itself"), "\(worker.error)")

        let hidden = input.appendingPathComponent(".out")
        for run in 1...3 {
            let result = try await Support.run(Support.pushmedia, ["process", input.path, "--out", hidden.path, "--jobs", "1", "--json"], in: folder)
            #expect(result.status == 0, "run \(run): \(result.error)")
            let summary = try Self.summary(result)
            #expect(summary["total"] as? Int == 3 && summary["ok"] as? Int == 3, "run \(run): \(summary)")
            #expect(summary["removedFiles"] as? Int == 0, "run \(run): \(summary)")
        }
        #expect(Self.exists(input, lookalike), "an input named like an output was removed")
    }

    @Test("a file two campaigns share (the same bytes) stays while either names it; the first's own stale files go")
    func sharedFilesKept() async throws {
        let folder = try Support.temporaryFolder()
        let first = try await Support.images(3, size: "320x240", in: folder.appendingPathComponent("a"))
        let second = folder.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        // The second campaign has a byte-identical copy of the first's img002: its result is
        // reused, its files are the same files.
        try FileManager.default.copyItem(at: first.appendingPathComponent("img002.jpg"), to: second.appendingPathComponent("same.jpg"))
        let out = folder.appendingPathComponent("out")
        let runA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1"], in: folder)
        #expect(runA.status == 0, "\(runA.error)")
        let itemsA = try OutputFolderTests.manifest(in: out).items
        let runB = try await Support.run(Support.pushmedia, ["process", second.path, "--out", out.path, "--jobs", "1"], in: folder)
        #expect(runB.status == 0, "\(runB.error)")
        let filesB = Set(try OutputFolderTests.manifest(in: out).items.flatMap(\.attachments).map(\.file))
        let shared = Set(try #require(itemsA.first { $0.source == "img002.jpg" }).attachments.map(\.file))
        #expect(filesB == shared, "the copy's files are the original's")

        // The first campaign drops img001 and img002: img001's files go, img002's stay (the second names them).
        for name in ["img001.jpg", "img002.jpg"] { try FileManager.default.removeItem(at: first.appendingPathComponent(name)) }
        let rerunA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1", "--json"], in: folder)
        #expect(rerunA.status == 0, "\(rerunA.error)")
        let own = Set(try #require(itemsA.first { $0.source == "img001.jpg" }).attachments.map(\.file))
        #expect(try Self.summary(rerunA)["removedFiles"] as? Int == own.count)
        for file in own { #expect(!Self.exists(out, file), "\(file) left behind") }
        for file in shared { #expect(Self.exists(out, file), "\(file), which the second campaign names, was removed") }
        for file in try #require(itemsA.first { $0.source == "img003.jpg" }).attachments.map(\.file) {
            #expect(Self.exists(out, file), "\(file) was removed")
        }
    }

    @Test("a campaign processed before ledgers existed keeps its files: its results in the queue say which are its")
    func campaignWithoutLedgerKept() async throws {
        let folder = try Support.temporaryFolder()
        let first = try await Support.images(1, size: "320x240", in: folder.appendingPathComponent("a"))
        let second = folder.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: first.appendingPathComponent("img001.jpg"), to: second.appendingPathComponent("same.jpg"))
        let out = folder.appendingPathComponent("out")
        let runB = try await Support.run(Support.pushmedia, ["process", second.path, "--out", out.path, "--jobs", "1"], in: folder)
        #expect(runB.status == 0, "\(runB.error)")
        // As an older version leaves the folder: the queue's results, no ledger.
        try FileManager.default.removeItem(at: out.appendingPathComponent(".pushmedia/ledgers"))
        let filesB = try OutputFolderTests.manifest(in: out).items.flatMap(\.attachments).map(\.file)
        let runA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1"], in: folder)
        #expect(runA.status == 0, "\(runA.error)")
        try FileManager.default.removeItem(at: first.appendingPathComponent("img001.jpg"))
        let rerunA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1", "--json"], in: folder)
        #expect(rerunA.status == 0, "\(rerunA.error)")
        #expect(try Self.summary(rerunA)["removedFiles"] as? Int == 0)
        for file in filesB { #expect(Self.exists(out, file), "\(file), which the older campaign's result names, was removed") }
    }

    @Test("files put in --out before any run, and a first campaign's files, survive a second campaign into the same --out")
    func othersFilesKept() async throws {
        let folder = try Support.temporaryFolder()
        let first = try await Support.images(2, size: "320x240", in: folder.appendingPathComponent("a"))
        let second = try await Support.images(2, size: "400x300", in: folder.appendingPathComponent("b"))
        let out = folder.appendingPathComponent("out")
        let users = out.appendingPathComponent("ab")
        try FileManager.default.createDirectory(at: users, withIntermediateDirectories: true)
        // The operator's files, named as outputs are: one read-only, one in a folder named like a shard.
        let readOnly = "0123456789abcdef-thumb.jpg"
        let inShard = "ab/ab00000000000000-expanded.jpg"
        for name in [readOnly, inShard] { try Data([0xFF, 0xD8, 0xFF]).write(to: out.appendingPathComponent(name)) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: out.appendingPathComponent(readOnly).path)

        let runA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1", "--json"], in: folder)
        #expect(runA.status == 0, "\(runA.error)")
        #expect(try Self.summary(runA)["removedFiles"] as? Int == 0)
        let filesA = try OutputFolderTests.manifest(in: out).items.flatMap(\.attachments).map(\.file)
        #expect(filesA.count == 6)

        let runB = try await Support.run(Support.pushmedia, ["process", second.path, "--out", out.path, "--jobs", "1", "--json"], in: folder)
        #expect(runB.status == 0, "\(runB.error)")
        #expect(try Self.summary(runB)["removedFiles"] as? Int == 0)
        let filesB = try OutputFolderTests.manifest(in: out).items.flatMap(\.attachments).map(\.file)
        #expect(Set(filesB).isDisjoint(with: filesA))
        for file in filesA + filesB + [readOnly, inShard] { #expect(Self.exists(out, file), "\(file) was removed") }

        // The first campaign again, one of its files gone: it removes its own stale outputs only.
        try FileManager.default.removeItem(at: first.appendingPathComponent("img002.jpg"))
        let rerunA = try await Support.run(Support.pushmedia, ["process", first.path, "--out", out.path, "--jobs", "1", "--json"], in: folder)
        #expect(rerunA.status == 0, "\(rerunA.error)")
        let keptA = Set(try OutputFolderTests.manifest(in: out).items.flatMap(\.attachments).map(\.file))
        let removedA = Set(filesA).subtracting(keptA)
        #expect(keptA.count == 3 && removedA.count == 3)
        #expect(try Self.summary(rerunA)["removedFiles"] as? Int == removedA.count)
        for file in removedA { #expect(!Self.exists(out, file), "\(file) left behind") }
        for file in Array(keptA) + filesB + [readOnly, inShard] { #expect(Self.exists(out, file), "\(file) was removed") }
    }
}
