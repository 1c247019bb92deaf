import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Batch processing and the manifest")
struct BatchTests {
    static func runFixtures(into out: URL, jobs: Int = 2) async throws -> Manifest {
        let inputs = try InputScanner.files(in: Fixtures.root, excluding: [out])
        return try await BatchProcessor(
            profile: .default, options: ProcessingOptions(outputDirectory: out, baseURL: "https://cdn.example.com/c"),
            jobs: jobs
        ).run(inputs: inputs)
    }

    @Test("every input appears exactly once, ok or failed, and the manifest on disk is the one returned")
    func everyInputOnce() async throws {
        let out = try Fixtures.temporaryFolder()
        let manifest = try await Self.runFixtures(into: out)
        let sources = manifest.items.map(\.source)
        #expect(sources == (try Fixtures.allSources()))
        #expect(Set(sources).count == sources.count)
        #expect(manifest.summary.total == sources.count)
        #expect(manifest.summary.ok + manifest.summary.failed == manifest.summary.total)
        #expect(manifest.items.filter { $0.status == .failed }.map(\.source).sorted() == [
            "broken/empty.jpg", "broken/not-an-image.jpg", "broken/truncated.jpg", "broken/truncated.mp4", "broken/truncated.png",
        ])
        // Movies and audio ship their media file; movies also a poster thumbnail and expanded image.
        for item in manifest.items where item.source.hasPrefix("video/") || item.source.hasPrefix("audio/") {
            #expect(item.attachment(.media) != nil, "\(item.source)")
            #expect((item.attachment(.thumbnail) != nil) == item.source.hasPrefix("video/"), "\(item.source)")
        }
        let onDisk = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(onDisk == manifest)
        // Every attachment file exists with the recorded size; nothing else but the manifest is there.
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        let attached = Set(manifest.items.flatMap { $0.attachments.map(\.file) })
        #expect(files == attached.union(["manifest.json"]), "stray files: \(files.subtracting(attached))")
        #expect(manifest.summary.outputBytes == manifest.items.flatMap(\.attachments).reduce(0) { $0 + $1.bytes })
    }

    @Test("the manifest validates against docs/manifest.schema.json")
    func schema() async throws {
        let out = try Fixtures.temporaryFolder()
        _ = try await Self.runFixtures(into: out)
        let result = try SchemaValidator.validate(out.appendingPathComponent("manifest.json"))
        #expect(result.valid, "\(result.output)")
    }

    @Test("the schema rejects a broken manifest (the check can fail)")
    func schemaRejects() async throws {
        let out = try Fixtures.temporaryFolder()
        _ = try await Self.runFixtures(into: out)
        let url = out.appendingPathComponent("manifest.json")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var items = json["items"] as! [[String: Any]]
        items[0]["status"] = "maybe"
        json["items"] = items
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        #expect(try SchemaValidator.validate(url).valid == false)
    }

    @Test("running again over the same inputs gives the same files and items")
    func rerun() async throws {
        let out = try Fixtures.temporaryFolder()
        let first = try await Self.runFixtures(into: out, jobs: 1)
        let firstFiles = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let second = try await Self.runFixtures(into: out, jobs: 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == firstFiles)
        #expect(first.items == second.items)
    }

    @Test("hidden files and an output folder inside the input folder are skipped")
    func scanning() throws {
        let folder = try Fixtures.temporaryFolder()
        try Data([1]).write(to: folder.appendingPathComponent(".DS_Store"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent(".git/config"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent("out/manifest.json"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a/b"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent("a/b/c.jpg"))
        try Data([1]).write(to: folder.appendingPathComponent("z.png"))
        let sources = try InputScanner.files(in: folder, excluding: [folder.appendingPathComponent("out")]).map(\.source)
        #expect(sources == ["a/b/c.jpg", "z.png"])
    }

    @Test("special files and broken links are listed (they fail later, but are not lost); links to folders are not followed")
    func scanningSpecialFiles() throws {
        let folder = try Fixtures.temporaryFolder()
        try Data([1]).write(to: folder.appendingPathComponent("a.jpg"))
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.jpg").path, withDestinationPath: "/nonexistent")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("sub/loop").path, withDestinationPath: "..")
        let sources = try InputScanner.files(in: folder).map(\.source)
        #expect(sources == ["a.jpg", "gone.jpg", "pipe.jpg"])
    }

    @Test("atomic writes leave no temporary files and replace the target whole")
    func atomicWrite() throws {
        let folder = try Fixtures.temporaryFolder()
        let target = folder.appendingPathComponent("manifest.json")
        try OutputStore.writeAtomically(Data("first".utf8), to: target)
        try OutputStore.writeAtomically(Data("second".utf8), to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["manifest.json"])
    }
}

/// Validates a manifest with Python's `jsonschema` (draft 2020-12), installed by `scripts/test`.
enum SchemaValidator {
    static func validate(_ manifest: URL) throws -> (valid: Bool, output: String) {
        let schema = Fixtures.packageRoot.appendingPathComponent("docs/manifest.schema.json")
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
            errors = list(validator.iter_errors(json.load(open(sys.argv[2]))))
            for e in errors[:10]: print(list(e.absolute_path), e.message)
            sys.exit(1 if errors else 0)
            """
        let result = try CommandRunner.run("/usr/bin/env", ["python3", "-c", script, schema.path, manifest.path])
        return (result.status == 0, result.output)
    }
}
