import Foundation
import PushMediaModel
import PushMediaWorker
import Testing

/// A catalogue-sized folder through the batch runner: distinct product images past the layout's
/// sharding threshold and several preview pages, a few broken files. The manifest, its NDJSON form and the preview pages are streamed, agree item
/// for item and validate; the outputs are sharded by hash; a second run resumes to the same files.
@Suite("Catalogue-sized batches", .serialized)
struct CatalogueBatchTests {
    /// Past `OutputLayout.shardAbove` (1,000) with room, and several preview pages of 200 items:
    /// every rule the test checks applies. Larger catalogues are measured in
    /// Benchmarks/catalogue.py, not here, where each item is a debug build's item process.
    static let count = 1500
    static let broken = ["zz-broken-1.jpg", "zz-broken-2.png", "sub/zz-broken-3.gif"]

    /// `count` distinct 8×8 JPEGs (one colour each) in one flat folder, plus broken files.
    static func makeCatalogue() async throws -> URL {
        let work = try Support.temporaryFolder("catalogue")
        let folder = work.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = """
            import sys
            from PIL import Image
            out, n = sys.argv[1], int(sys.argv[2])
            for i in range(n):
                Image.new("RGB", (8, 8), (i % 256, (i // 256) % 256, (i * 7) % 256)).save(f"{out}/product-{i:05d}.jpg", quality=90)
            """
        // Debian's Python, which has Pillow (python3-pil), not a pyenv one.
        let made = try await Support.run("/usr/bin/python3", ["-c", script, folder.path, String(count)], in: work)
        #expect(made.status == 0, "\(made.error)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in broken { try Data("not an image".utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test("1,500 items: manifest, NDJSON and preview pages validate and agree; outputs sharded; a rerun resumes to the same files")
    func catalogue() async throws {
        let input = try await Self.makeCatalogue()
        let out = try Support.temporaryFolder("catalogue-out")
        let batch = QueuedBatch(inputDirectory: input, outputDirectory: out, profile: .default, concurrency: 2, baseURL: nil)
        let first = try await batch.run()
        #expect(first.summary.total == Self.count + Self.broken.count)
        #expect(first.summary.failed == Self.broken.count && first.failed.map(\.source).sorted() == Self.broken.sorted())

        // manifest.json and manifest.ndjson: valid, the same items in the same order, by source.
        let manifestURL = out.appendingPathComponent("manifest.json")
        let ndjsonURL = out.appendingPathComponent("manifest.ndjson")
        let json = try await SchemaValidator.validate(manifestURL, schema: "docs/manifest.schema.json")
        #expect(json.valid, "\(json.output)")
        let lines = try await SchemaValidator.validate(ndjsonURL, schema: "docs/manifest-item.schema.json", lines: true)
        #expect(lines.valid, "\(lines.output)")
        let manifest = try first.readManifest()
        var fromLines: [Item] = []
        try Manifest.forEachLine(ofNDJSON: ndjsonURL) {
            fromLines.append($0)
            return true
        }
        #expect(fromLines == manifest.items)
        #expect(manifest.items.count == first.summary.total)
        let sources = manifest.items.map { Array($0.source.utf8) }
        #expect(sources == sources.sorted { $0.lexicographicallyPrecedes($1) }, "items by source, byte order")
        #expect(manifest.summary == Manifest(profile: manifest.profile, items: manifest.items).summary)

        // Over 1,000 inputs: every file in the subfolder of its hash's first two digits.
        let attachments = manifest.items.flatMap(\.attachments)
        #expect(attachments.count == 3 * Self.count, "thumbnail, expanded and Android image per item")
        for attachment in attachments {
            let parts = attachment.file.split(separator: "/")
            #expect(parts.count == 2 && parts[1].hasPrefix(parts[0]) && parts[0].count == 2, "\(attachment.file)")
            let size = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(attachment.file).path)[.size] as? Int
            #expect(size == attachment.bytes, "\(attachment.file)")
        }
        // (The schema checks leave their command's output, run-*, in the folder.)
        let top = Set(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix("run-") })
        let shards = Set(attachments.map { String($0.file.prefix(2)) })
        #expect(top == shards.union(["manifest.json", "manifest.ndjson", "preview.html", "preview", ".pushmedia"]), "\(top.subtracting(shards))")

        // The preview: no page over 2 MB; every ok item's card on exactly one page of items,
        // every failure's row on a page of failures.
        let pages = try PreviewPages(out)
        #expect(pages.largest <= 2 << 20, "largest page \(pages.largest) bytes")
        #expect(pages.all.count > 2 && pages.all.keys.contains("preview/items-0001.html"), "\(pages.all.keys.sorted())")
        let cards = pages.sources(onPagesStartingWith: "preview/items", marker: "<article class=\"item")
        let rows = pages.sources(onPagesStartingWith: "preview/failed", marker: "<tr class=\"failure\"")
        for item in manifest.items {
            let source = HTMLText.escape(item.source)
            if item.status == .ok {
                #expect(cards[source] == 1, "\(item.source): \(cards[source] ?? 0) cards")
            } else {
                #expect(rows[source] == 1 && cards[source] == nil, "\(item.source)")
            }
        }
        #expect(cards.values.reduce(0, +) == Self.count && rows.values.reduce(0, +) == Self.broken.count)

        // A second run: all resumed, the same files and items.
        let outputs = {
            try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".pushmedia") && !$0.hasPrefix("run-") }.sorted()
        }
        let files = try outputs()
        let events = EventLog()
        let second = try await batch.run { events.append($0) }
        #expect(events.items.count == first.summary.total && events.items.allSatisfy(\.resumed))
        #expect(try second.readManifest().items == manifest.items)
        #expect(try outputs() == files)
    }
}

/// The preview's pages on disk, by path relative to the output folder.
struct PreviewPages {
    var all: [String: String] = [:]
    var largest = 0

    init(_ out: URL) throws {
        var paths = ["preview.html"]
        let folder = out.appendingPathComponent("preview")
        if FileManager.default.fileExists(atPath: folder.path) {
            paths += try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".html") }.map { "preview/" + $0 }
        }
        for path in paths {
            let data = try Data(contentsOf: out.appendingPathComponent(path))
            largest = max(largest, data.count)
            all[path] = String(decoding: data, as: UTF8.self)
        }
    }

    /// How often each source (as escaped in the page) is on the pages whose path starts with
    /// `prefix`, in an element that starts with `marker` and carries `data-source`.
    func sources(onPagesStartingWith prefix: String, marker: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (path, html) in all where path.hasPrefix(prefix) {
            for element in html.components(separatedBy: marker).dropFirst() {
                guard let start = element.range(of: "data-source=\""),
                    let end = element[start.upperBound...].firstIndex(of: "\"")
                else { continue }
                counts[String(element[start.upperBound..<end]), default: 0] += 1
            }
        }
        return counts
    }
}

/// HTML text escaping as the preview writes it (for finding a source on a page).
enum HTMLText {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
