import Foundation
import PushMediaModel
import Testing

/// The streamed manifest: the same document ``Manifest`` encodes, its NDJSON form item for item,
/// written atomically.
@Suite("Manifest written item by item")
struct ManifestWriterTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushmedia-manifest-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let items: [Item] = [
        Sample.image("a \"quoted\" name.jpg", warnings: ["a warning with / and \\ and ü"]),
        Sample.failed("b.jpg"),
        Sample.movie("c/clip.mp4"),
        Sample.audio("d.wav"),
        Item.failed(source: "caf%E9.jpg", sourceEncoding: .percent, error: ItemError(.corruptInput, "bad")),
    ]

    @Test("0, 1 and 5 items: the JSON form decodes to the Manifest of the same items; NDJSON has them line by line", arguments: [0, 1, 5])
    func sameDocument(_ count: Int) throws {
        let out = try Self.folder()
        let items = Array(Self.items.prefix(count))
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let writer = try ManifestWriter(directory: out, profile: .default, generatedAt: date)
        for item in items { try writer.add(item) }
        // Nothing is in place before the end.
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
        let summary = try writer.finish()

        let written = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let expected = Manifest(generatedAt: date, profile: .default, items: items)
        #expect(written.items == items)
        #expect(written.summary == expected.summary && summary == expected.summary)
        #expect(written.profile == expected.profile && written.generatedAt == expected.generatedAt)
        #expect(written.schemaVersion == Manifest.currentSchemaVersion && written.generator == .current)

        var lines: [Item] = []
        try Manifest.forEachLine(ofNDJSON: out.appendingPathComponent("manifest.ndjson")) {
            lines.append($0)
            return true
        }
        #expect(lines == items)
        let text = try String(contentsOf: out.appendingPathComponent("manifest.ndjson"), encoding: .utf8)
        #expect(text.split(separator: "\n").count == count && (count == 0 || text.hasSuffix("\n")))
        // No temporary file is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["manifest.json", "manifest.ndjson"])
    }

    @Test("a writer discarded mid-way leaves the previous manifest as it was, and no temporary file")
    func discarded() throws {
        let out = try Self.folder()
        let old = try ManifestWriter(directory: out, profile: .default)
        try old.add(Self.items[0])
        try old.finish()
        let before = try Data(contentsOf: out.appendingPathComponent("manifest.json"))

        let writer = try ManifestWriter(directory: out, profile: .default)
        for item in Self.items { try writer.add(item) }
        writer.discard()
        #expect(try Data(contentsOf: out.appendingPathComponent("manifest.json")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["manifest.json", "manifest.ndjson"])
    }

    @Test("reading NDJSON stops where asked, and names the line that is not an item")
    func lines() throws {
        let out = try Self.folder()
        let writer = try ManifestWriter(directory: out, profile: .default)
        for item in Self.items { try writer.add(item) }
        try writer.finish()
        let url = out.appendingPathComponent("manifest.ndjson")
        var seen: [String] = []
        try Manifest.forEachLine(ofNDJSON: url) {
            seen.append($0.source)
            return seen.count < 2
        }
        #expect(seen == Self.items.prefix(2).map(\.source))

        var text = try String(contentsOf: url, encoding: .utf8)
        text += "{\"not\": \"an item\"}\n"
        try text.write(to: url, atomically: true, encoding: .utf8)
        #expect {
            try Manifest.forEachLine(ofNDJSON: url) { _ in true }
        } throws: { ($0 as? Manifest.NDJSONError)?.line == Self.items.count + 1 }
    }
}
