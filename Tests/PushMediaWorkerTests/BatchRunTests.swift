import Foundation
import PushMediaModel
import PushMediaWorker
import Testing

/// The batch runner in-process (`QueuedBatch`, what `process` and a Swift campaign tool call):
/// every input once, the manifest and preview on disk, events as the run goes.
@Suite("Batch runner and the manifest")
struct BatchRunTests {
    static func runFixtures(into out: URL, jobs: Int = 2, onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in })
        async throws -> Manifest
    {
        try await QueuedBatch(
            inputDirectory: Support.fixtures, outputDirectory: out, profile: .default, concurrency: jobs,
            baseURL: "https://cdn.example.com/c"
        ).run(onEvent: onEvent).readManifest()
    }

    @Test("every input appears exactly once, ok or failed, and the manifest on disk is the one returned")
    func everyInputOnce() async throws {
        let out = try Support.temporaryFolder()
        let manifest = try await Self.runFixtures(into: out)
        let sources = manifest.items.map(\.source)
        #expect(sources == (try Support.fixtureSources()))
        #expect(Set(sources).count == sources.count)
        #expect(manifest.summary.total == sources.count)
        #expect(manifest.summary.ok + manifest.summary.failed == manifest.summary.total)
        #expect(manifest.items.filter { $0.status == .failed }.map(\.source).sorted() == Support.brokenFixtures)
        // Movies and audio ship their media file; movies also a poster thumbnail and expanded image.
        for item in manifest.items where item.source.hasPrefix("video/") || item.source.hasPrefix("audio/") {
            #expect(item.attachment(.media) != nil, "\(item.source)")
            #expect((item.attachment(.thumbnail) != nil) == item.source.hasPrefix("video/"), "\(item.source)")
        }
        let onDisk = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(onDisk.items == manifest.items)
        // Every attachment file exists with the recorded size; besides them only the manifest,
        // the preview and the queue's folder.
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        let attached = Set(manifest.items.flatMap { $0.attachments.map(\.file) })
        #expect(
            files == attached.union(["manifest.json", "manifest.ndjson", "preview.html", ".pushmedia"]), "stray files: \(files.subtracting(attached))"
        )
        for attachment in manifest.items.flatMap(\.attachments) {
            let size = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(attachment.file).path)[.size] as? Int
            #expect(size == attachment.bytes, "\(attachment.file)")
        }
        #expect(manifest.summary.outputBytes == manifest.items.flatMap(\.attachments).reduce(0) { $0 + $1.bytes })
    }

    @Test("the manifest validates against docs/manifest.schema.json, and the schema rejects a broken one")
    func schema() async throws {
        let out = try Support.temporaryFolder()
        _ = try await Self.runFixtures(into: out)
        let url = out.appendingPathComponent("manifest.json")
        let result = try await SchemaValidator.validate(url, schema: "docs/manifest.schema.json")
        #expect(result.valid, "\(result.output)")

        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var items = json["items"] as! [[String: Any]]
        items[0]["status"] = "maybe"
        json["items"] = items
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        #expect(try await SchemaValidator.validate(url, schema: "docs/manifest.schema.json").valid == false)
    }

    @Test("running again over the same inputs redoes nothing: same files, same items, every event resumed")
    func rerun() async throws {
        let out = try Support.temporaryFolder()
        let first = try await Self.runFixtures(into: out, jobs: 1)
        let firstFiles = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let events = EventLog()
        let second = try await Self.runFixtures(into: out, jobs: 2) { events.append($0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == firstFiles)
        #expect(first.items == second.items)
        let items = events.items
        #expect(items.count == first.items.count)
        #expect(items.allSatisfy { $0.resumed && $0.ms == 0 })
    }

    @Test("events(): one item event per file as it finishes, counted 1…N, then the summary")
    func eventSequence() async throws {
        let out = try Support.temporaryFolder()
        let batch = QueuedBatch(
            inputDirectory: Support.fixtures, outputDirectory: out, profile: .default, concurrency: 2, baseURL: nil)
        var items: [ItemEvent] = []
        var summaries: [BatchSummary] = []
        for try await event in batch.events() {
            #expect(summaries.isEmpty, "nothing comes after the summary")
            switch event {
            case .item(let item): items.append(item)
            case .summary(let summary): summaries.append(summary)
            }
        }
        let sources = try Support.fixtureSources()
        #expect(items.map(\.source).sorted() == sources)
        #expect(items.map(\.done) == Array(1...sources.count))
        #expect(items.allSatisfy { $0.total == sources.count && !$0.resumed && $0.attempt >= 1 })
        #expect(items.filter { $0.status == .failed }.map(\.source).sorted() == Support.brokenFixtures)
        #expect(items.filter { $0.status == .failed }.allSatisfy { $0.code != nil && $0.attachments.isEmpty })
        let summary = try #require(summaries.first)
        let manifest = try Manifest.decode(from: Data(contentsOf: URL(fileURLWithPath: summary.manifest)))
        #expect(summary.total == manifest.summary.total && summary.failed == manifest.summary.failed)
        #expect(summary.outputBytes == items.reduce(0) { $0 + $1.bytes })
        // An item event's bytes are its attachments' bytes in the manifest.
        for item in items {
            let recorded = try #require(manifest.item(source: item.source))
            #expect(item.bytes == recorded.attachments.reduce(0) { $0 + $1.bytes }, "\(item.source)")
            #expect(item.attachments.map(\.file) == recorded.attachments.map(\.file), "\(item.source)")
        }
        #expect(FileManager.default.fileExists(atPath: summary.preview))
    }

    @Test("a killed run's hidden temporary files are removed by the next run; other files stay")
    func leftoversRemoved() async throws {
        let folder = try Support.temporaryFolder()
        let input = folder.appendingPathComponent("in")
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: out.appendingPathComponent("ab"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Support.packageRoot.appendingPathComponent("Fixtures/photos/landscape.jpg"), to: input.appendingPathComponent("a.jpg"))
        let leftovers = [
            ".pushmedia-\(UUID().uuidString).mp4", ".0123456789abcdef-media.mp4.\(UUID().uuidString).tmp",
            "ab/.ab23456789abcdef-thumb.jpg.\(UUID().uuidString).tmp",
        ]
        let kept = [".notes.tmp", ".pushmedia-notes.txt", "readme.txt", "ab/.x.tmp"]
        for name in leftovers + kept { try Data("partial".utf8).write(to: out.appendingPathComponent(name)) }
        let manifest = try await QueuedBatch(
            inputDirectory: input, outputDirectory: out, profile: .default, concurrency: 1, baseURL: "https://cdn.example.com/c"
        )
        .run().readManifest()
        #expect(manifest.summary.ok == 1)
        for name in leftovers { #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)") }
        for name in kept { #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path), "\(name)") }
    }
}

/// Events collected from any task.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [BatchEvent] = []

    func append(_ event: BatchEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var items: [ItemEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events.compactMap { if case .item(let item) = $0 { item } else { nil } }
    }
}

/// Validates JSON files with Python's `jsonschema` (draft 2020-12), installed by `scripts/test`.
enum SchemaValidator {
    /// Validates one JSON document, or, with `lines`, every line of an NDJSON file.
    static func validate(_ file: URL, schema: String, lines: Bool = false) async throws -> (valid: Bool, output: String) {
        let script = """
            import glob, json, os, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            # Every schema in docs/ by its $id, so one may refer to another (the NDJSON item
            # schema refers to the manifest's item).
            store = {}
            for path in glob.glob(os.path.join(os.path.dirname(sys.argv[1]), "*.schema.json")):
                other = json.load(open(path))
                if "$id" in other: store[other["$id"]] = other
            try:
                from referencing import Registry, Resource
                registry = Registry().with_resources([(k, Resource.from_contents(v)) for k, v in store.items()])
                validator = jsonschema.Draft202012Validator(schema, registry=registry, format_checker=jsonschema.FormatChecker())
            except ImportError:
                resolver = jsonschema.RefResolver.from_schema(schema, store=store)
                validator = jsonschema.Draft202012Validator(schema, resolver=resolver, format_checker=jsonschema.FormatChecker())
            text = open(sys.argv[2]).read()
            documents = [json.loads(l) for l in text.splitlines()] if sys.argv[3] == "lines" else [json.loads(text)]
            errors = [(n, e) for n, d in enumerate(documents) for e in validator.iter_errors(d)]
            for n, e in errors[:10]: print(n, list(e.absolute_path), e.message)
            sys.exit(1 if errors or not documents else 0)
            """
        let result = try await Support.run(
            "/usr/bin/env",
            ["python3", "-c", script, Support.packageRoot.appendingPathComponent(schema).path, file.path, lines ? "lines" : "one"],
            in: file.deletingLastPathComponent())
        return (result.status == 0, result.output + result.error)
    }
}
