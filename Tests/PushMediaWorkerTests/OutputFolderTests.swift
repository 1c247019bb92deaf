import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue
import Testing

@testable import PushMediaWorker

/// What `process` leaves in its output folder when it runs again: what its manifest names, and a
/// damaged stored result processed again rather than reported as a failure for ever.
@Suite("process's output folder across runs")
struct OutputFolderTests {
    /// The output-named files under `out` (flat or in shard folders), as manifest `file` paths.
    static func outputFiles(in out: URL) throws -> Set<String> {
        var found = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
            if OutputStore.isOutputName(name) { found.insert(name) }
            var isFolder: ObjCBool = false
            if name.count == 2, FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path, isDirectory: &isFolder),
                isFolder.boolValue
            {
                for inner in try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent(name).path)
                where OutputStore.isOutputName(inner) {
                    found.insert(name + "/" + inner)
                }
            }
        }
        return found
    }

    static func manifest(in out: URL) throws -> Manifest {
        try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
    }

    @Test("output names: the store's own pattern only")
    func outputNames() {
        for name in ["0123456789abcdef-thumb.jpg", "fedcba9876543210-expanded.png", "00000000000000aa-media.m4a", "0a0a0a0a0a0a0a0a-android.jpg"] {
            #expect(OutputStore.isOutputName(name), "\(name)")
        }
        for name in [
            "0123456789ABCDEF-thumb.jpg", "0123456789abcde-thumb.jpg", "0123456789abcdef-poster.jpg", "0123456789abcdef-thumb",
            "0123456789abcdef-thumb.", "0123456789abcdef-thumb.JPG", "0123456789abcdef-thumb.jpegxl", "notes.txt", "manifest.json",
            ".0123456789abcdef-thumb.jpg.tmp", "0123456789abcdefg-thumb.jpg", "0123456789abcdef_thumb.jpg",
        ] {
            #expect(!OutputStore.isOutputName(name), "\(name)")
        }
    }

    @Test("a file replaced, a file removed, a stray output: the rerun leaves exactly what the manifest names")
    func staleOutputsRemoved() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(3, size: "640x480", in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path, "--jobs", "1"]
        let first = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(first.status == 0, "\(first.error)")
        let before = try Self.manifest(in: out)
        #expect(before.items.count == 3 && before.items.allSatisfy { $0.status == .ok })
        #expect(try Self.outputFiles(in: out) == Set(before.items.flatMap(\.attachments).map(\.file)))

        // img001 replaced by another picture (another size: changed however old its time), img003
        // removed; a file of the operator's named like an output, and another, beside them.
        let replacement = try await Support.images(1, size: "500x500", in: folder.appendingPathComponent("other"))
        let img001 = input.appendingPathComponent("img001.jpg")
        try FileManager.default.removeItem(at: img001)
        try FileManager.default.copyItem(at: replacement.appendingPathComponent("img001.jpg"), to: img001)
        try FileManager.default.removeItem(at: input.appendingPathComponent("img003.jpg"))
        let stray = out.appendingPathComponent("0123456789abcdef-thumb.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: stray)
        let notes = out.appendingPathComponent("notes.txt")
        try Data("kept".utf8).write(to: notes)

        let second = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(second.status == 0, "\(second.error)")
        let after = try Self.manifest(in: out)
        #expect(after.items.map(\.source) == ["img001.jpg", "img002.jpg"])
        #expect(after.items.allSatisfy { $0.status == .ok })
        let named = Set(after.items.flatMap(\.attachments).map(\.file))
        #expect(try Self.outputFiles(in: out) == named.union([stray.lastPathComponent]))
        let gone = Set(before.items.filter { $0.source != "img002.jpg" }.flatMap(\.attachments).map(\.file)).subtracting(named)
        #expect(!gone.isEmpty)
        for file in gone {
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file) left behind")
        }
        // PushMedia never wrote the output-named file: it stays, like any file of the operator's.
        #expect(FileManager.default.fileExists(atPath: stray.path), "a file PushMedia did not write was removed")
        #expect(FileManager.default.fileExists(atPath: notes.path), "a file that is not PushMedia's was removed")
        // img002's files are the same files, untouched.
        let kept = try #require(after.items.first { $0.source == "img002.jpg" })
        #expect(kept.attachments.map(\.file) == before.items.first { $0.source == "img002.jpg" }?.attachments.map(\.file))
    }

    @Test("the sweep removes what its campaign's ledger names and nothing names now: in shard folders too, never another campaign's")
    func ledgerSweep() throws {
        let folder = try Support.temporaryFolder()
        let state = folder.appendingPathComponent(".pushmedia")
        try FileManager.default.createDirectory(at: OutputLedger.folder(inState: state), withIntermediateDirectories: true)
        for shard in ["ab", "cd"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(shard), withIntermediateDirectories: true)
        }
        let kept = "ab/ab23456789abcdef-thumb.jpg"
        let stale = "ab/ab00000000000000-expanded.jpg"
        let flatStale = "cd0000000000000a-media.mp4"
        let theirs = "cd/cd11111111111111-android.jpg"
        let unrecorded = "cd/cd22222222222222-thumb.jpg"
        let notOurs = "ab/readme.txt"
        for name in [kept, stale, flatStale, theirs, unrecorded, notOurs] {
            try Data([1]).write(to: folder.appendingPathComponent(name))
        }
        let ours = OutputLedger.of(campaign: "process:/a", inState: state)
        let other = OutputLedger.of(campaign: "process:/b", inState: state)
        #expect(ours != other)
        for name in [kept, stale, flatStale, theirs, notOurs, "../escape-thumb.jpg", stale] { try ours.record(name) }
        try other.record(theirs)
        let sweep = OutputSweep(folder: folder, ledger: ours)
        let next = try LedgerWriter(file: sweep.nextLedgerFile)
        try next.add(kept)
        try next.close()
        var removed = 0
        try sweep.run(referenced: [kept.hashValue], removed: &removed)
        #expect(removed == 2)
        for name in [kept, theirs, unrecorded, notOurs] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name) was removed")
        }
        for name in [stale, flatStale] {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name) left behind")
        }
        // The ledger now names what the manifest does.
        var names: [String] = []
        try ours.forEachName { names.append($0) }
        #expect(names == [kept])
        #expect(!FileManager.default.fileExists(atPath: sweep.nextLedgerFile.path))
        #expect(OutputSweep.isStorePath("ab/ab23456789abcdef-thumb.jpg") && OutputSweep.isStorePath("ab23456789abcdef-thumb.jpg"))
        for path in ["cd/ab23456789abcdef-thumb.jpg", "../ab23456789abcdef-thumb.jpg", "ab/x/ab23456789abcdef-thumb.jpg", "ab/readme.txt", ""] {
            #expect(!OutputSweep.isStorePath(path), "\(path)")
        }
    }

    @Test("a stored result damaged in the state file: the rerun processes that file again, and it is ok")
    func damagedResultReprocessed() async throws {
        let folder = try Support.temporaryFolder()
        let input = try await Support.images(2, size: "640x480", in: folder)
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", input.path, "--out", out.path, "--jobs", "1"]
        let first = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(first.status == 0, "\(first.error)")

        let queuePath = out.appendingPathComponent(".pushmedia/queue.sqlite").path
        let damage = try await Support.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                    + "n = db.execute(\"UPDATE jobs SET result = x'7b226e6f74223a' WHERE source = 'img001.jpg'\").rowcount; "
                    + "db.commit(); print(n)",
                queuePath,
            ], in: folder)
        #expect(damage.status == 0 && damage.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(damage.error)")

        let second = try await Support.run(Support.pushmedia, arguments, in: folder)
        #expect(second.status == 0, "\(second.error)")
        let manifest = try Self.manifest(in: out)
        #expect(manifest.items.map(\.source) == ["img001.jpg", "img002.jpg"])
        #expect(manifest.items.allSatisfy { $0.status == .ok && $0.attachments.count == 3 }, "\(manifest.items.map(\.error))")
        let jobs = try await Support.jobs("sqlite:" + queuePath, campaign: "process:" + input.resolvingSymlinksInPath().path)
        let redone = try #require(jobs.first { $0.source == "img001.jpg" })
        #expect(redone.state == .succeeded && (try? Item.decode(from: redone.result ?? Data())) != nil)
        #expect(redone.errorHistory.contains { $0.message.contains("stored result could not be read") }, "\(redone.errorHistory)")
    }

    @Test("a worker starting on a shared folder removes only the temporaries no item can still be writing")
    func workerRemovesOldTemporaries() async throws {
        let folder = try Support.temporaryFolder()
        let out = folder.appendingPathComponent("out")
        let shard = out.appendingPathComponent("ab")
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        let old = [
            out.appendingPathComponent(TemporaryFileName.media(extension: "mp4")),
            shard.appendingPathComponent(TemporaryFileName.beside("ab00000000000000-thumb.jpg")),
        ]
        let recent = [
            out.appendingPathComponent(TemporaryFileName.media(extension: "m4a")),
            shard.appendingPathComponent(TemporaryFileName.beside("ab11111111111111-expanded.jpg")),
        ]
        let output = shard.appendingPathComponent("ab22222222222222-thumb.jpg")
        for file in old + recent + [output] { try Data([1, 2, 3]).write(to: file) }
        // Last written just past the age a worker waits for, and just before it.
        let longAgo = Date() - OutputLeftovers.unusedForWorkers - 600
        let lately = Date() - OutputLeftovers.unusedForWorkers + 600
        for file in old + [output] { try FileManager.default.setAttributes([.modificationDate: longAgo], ofItemAtPath: file.path) }
        for file in recent { try FileManager.default.setAttributes([.modificationDate: lately], ofItemAtPath: file.path) }

        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        let root = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let worker = try await Support.run(
            Support.pushmedia, ["worker", "--queue", queue, "--out", out.path, "--root", root.path, "--campaign", "none", "--drain"],
            in: folder)
        #expect(worker.status == 0, "\(worker.error)")
        for file in old { #expect(!FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) left") }
        for file in recent + [output] { #expect(FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) removed") }
    }

    @Test("which finished jobs have an unreadable result (pure)")
    func unreadableResult() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func job(_ state: JobState, _ result: Data?) -> Job {
            Job(
                id: 1, campaign: "c", source: "a.jpg", profile: "p", state: state, runAt: now, result: result, createdAt: now,
                updatedAt: now, finishedAt: state.isTerminal ? now : nil)
        }
        let good = try Item(source: "a.jpg", sourceBytes: 1, kind: .image, status: .ok).jsonData()
        #expect(!QueuedBatch.resultUnreadable(job: job(.succeeded, good)))
        #expect(QueuedBatch.resultUnreadable(job: job(.succeeded, Data("{\"not\":".utf8))))
        #expect(QueuedBatch.resultUnreadable(job: job(.failed, nil)))
        #expect(!QueuedBatch.resultUnreadable(job: job(.dead, nil)))
        #expect(!QueuedBatch.resultUnreadable(job: job(.queued, nil)))
    }
}
