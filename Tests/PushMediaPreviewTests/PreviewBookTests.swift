import Foundation
import PushMediaModel
import Testing

@testable import PushMediaPreview

@Suite("Paged preview (PreviewBook)")
struct PreviewBookTests {
    @Test func aSmallCampaignIsTheSinglePageByteForByte() throws {
        let folder = try BookFolder()
        let manifest = Sample.manifest([
            Sample.image("a/one.jpg", thumbFile: "ab/1-thumb.jpg", expandedFile: "ab/1 expanded.jpg"),
            Sample.failed("b/<broken>.jpg", message: "Premature end of <input>"),
            Sample.movie("c/clip.mp4"), Sample.audio("e/jingle.wav"),
            Sample.image("w.jpg", warnings: ["dropped 12 of 80 frames"]),
        ])
        let renderer = PreviewRenderer(title: "Spring sale", budgets: [.thumbnail: 10_000])
        let (_, written) = try folder.write(manifest.items, renderer: renderer, prefix: "../out/")
        #expect(written == ["preview.html"])
        let expected = renderer.render(
            manifest: manifest, pageDirectory: folder.url, manifestDirectory: folder.url.deletingLastPathComponent().appendingPathComponent("out"))
        #expect(folder.read("preview.html") == expected)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("preview").path))

        // Exactly pageSize items: still the single page; one more: pages.
        let fifty = Sample.manifest(Campaign.items(50))
        let (_, one) = try folder.write(fifty.items, pageSize: 50)
        #expect(one == ["preview.html"])
        #expect(folder.read("preview.html") == PreviewRenderer().render(manifest: fifty, pageDirectory: folder.url, manifestDirectory: folder.url))
        let (_, paged) = try folder.write(Sample.manifest(Campaign.items(51)).items, pageSize: 50)
        // (49 ok, 2 failed, 5 with warnings.)
        #expect(paged == ["preview/items-0001.html", "preview/failed-0001.html", "preview/warned-0001.html", "preview.html"])

        // An empty campaign is the single page too.
        let (_, empty) = try folder.write([])
        #expect(empty == ["preview.html"])
        #expect(folder.read("preview.html").contains("No item was processed."))
    }

    @Test func aLargeCampaignIsASummaryAndPages() throws {
        let folder = try BookFolder()
        let items = Sample.manifest(Campaign.items(5000)).items
        let (book, written) = try folder.write(items, prefix: "../out/")
        // Bounded memory: never more than a page of items or of cards held.
        #expect(book.maxItemsHeld <= book.pageSize)
        #expect(book.maxFragmentsHeld <= book.pageSize)

        #expect(written.last == "preview.html")
        let pages = folder.load(written)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("preview").path)
        #expect(Set(onDisk.map { "preview/" + $0 }) == Set(written.dropLast()))
        let itemPages = written.filter { $0.hasPrefix("preview/items-") }
        let failedPages = written.filter { $0.hasPrefix("preview/failed-") }
        let warnedPages = written.filter { $0.hasPrefix("preview/warned-") }
        let ok = items.filter { $0.status == .ok }.count
        #expect(itemPages.count == (ok + book.pageSize - 1) / book.pageSize)
        #expect(failedPages.count == 1 && warnedPages.count == 3)

        #expect(pages.problems().isEmpty, "\(pages.problems().prefix(20))")

        // Every item on exactly one page of its kind, with its anchor; items with warnings
        // listed, linked to it.
        var homes: [String: [String]] = [:]
        var warnedLinks = Set<String>()
        for (path, page) in pages.pages where path.hasPrefix("preview/") {
            for source in page.values("data-source") { homes[source, default: []].append(path) }
            if path.hasPrefix("preview/warned-") { warnedLinks.formUnion(page.values("href")) }
        }
        for (index, item) in items.enumerated() {
            let on = homes[HTMLEscaping.attribute(item.source)] ?? []
            #expect(on.count == 1, "\(item.source) is on \(on)")
            guard let home = on.first else { continue }
            #expect(home.hasPrefix(item.status == .ok ? "preview/items-" : "preview/failed-"), "\(item.source) is on \(home)")
            #expect(pages.pages[home]?.ids.contains("item-\(index + 1)") == true, "no anchor item-\(index + 1) on \(home)")
            if !item.warnings.isEmpty {
                #expect(warnedLinks.contains(String(home.dropFirst("preview/".count)) + "#item-\(index + 1)"), "\(item.source)")
            }
        }

        // The summary: counts, first failures, outliers, slowest, sample, every page linked.
        let summary = try #require(pages.pages["preview.html"])
        let failed = items.filter { $0.status == .failed }.count
        #expect(summary.html.contains("<dt>Items</dt><dd>5000</dd>"))
        #expect(summary.html.contains("<dt>OK</dt><dd>\(ok)</dd>"))
        #expect(summary.html.contains("<dt>Failed</dt><dd>\(failed)</dd>"))
        #expect(summary.html.contains(#"<h2>Failed <span class="count">\#(failed)</span></h2>"#))
        #expect(summary.html.occurrences(of: #"<tr class="failure">"#) == 50)
        #expect(summary.html.occurrences(of: #"<tr class="outlier "#) == 20)
        #expect(summary.html.occurrences(of: #"<tr class="estimate "#) == 20)
        #expect(summary.html.occurrences(of: #"<div class="sample-item">"#) == 12)
        #expect(summary.html.occurrences(of: #"<tr class="warned">"#) == 20)
        let failuresAt = try #require(summary.html.range(of: #"<section class="failures""#))
        #expect(failuresAt.lowerBound < summary.html.range(of: #"id="outliers""#)!.lowerBound)
        let linked = Set(summary.values("href").map { String($0.prefix { $0 != "#" }) })
        #expect(Set(written.dropLast()).isSubset(of: linked))
        // Slowest first: the estimates' seconds never grow down the table.
        let table = BookPage(html: summary.html.slice(from: #"<section class="estimates""#, to: "</section>"))
        let seconds = table.values("data-seconds").compactMap(Double.init)
        #expect(seconds.count == 20 && seconds == seconds.sorted(by: >))
        // Attachments relative to each page, one path segment at a time.
        #expect(summary.html.contains(#"src="../out/00/0-thumb.jpg""#)) // the sample's first card
        let first = try #require(pages.pages["preview/items-0001.html"])
        #expect(first.html.contains(#"src="../../out/01/1%20expanded.jpg""#))
        #expect(first.html.contains(#"<span class="pages">\#(itemPages.count)"#))
        // Names with markup are text.
        #expect(first.html.contains("&lt;script&gt;alert(&quot;3&quot;)&lt;/script&gt;"))
        // Bytes to host: estimated past 4,096 distinct files, within a few percent.
        var distinct: [String: Int] = [:]
        for item in items { for attachment in item.attachments { distinct[attachment.file] = attachment.bytes } }
        let exact = Double(distinct.values.reduce(0, +))
        let shown = try #require(summary.values("data-bytes").first.flatMap(Double.init))
        #expect(abs(shown - exact) / exact < 0.05, "\(shown) vs \(exact)")
        #expect(summary.html.contains("estimated from a sample of their names"))
    }

    @Test func noPageIsOverTwoMegabytes() throws {
        let folder = try BookFolder()
        var items = Sample.manifest(Campaign.items(600)).items
        // Long warnings: pages close early, before 200 cards.
        for i in items.indices where items[i].status == .ok && i % 2 == 0 {
            items[i].warnings = (0..<4).map { "warning \($0): " + String(repeating: "<long> \"text\" ", count: 150) }
        }
        // Far too many warnings for a card, an absurd source name, an absurd file name.
        items[10].warnings = (0..<2_000).map { "warning \($0) " + String(repeating: "x", count: 500) }
        items[20].source = String(items[20].source.dropLast(4)) + String(repeating: "<very-long-name>", count: 40_000) + ".jpg"
        items[30].attachments[0].file = String(repeating: "f", count: 300_000) + ".jpg"
        items[40] = Sample.failed(items[40].source, message: String(repeating: "message \"quoted\" ", count: 100_000))
        let (_, written) = try folder.write(items)
        let pages = folder.load(written)
        #expect(pages.problems().isEmpty, "\(pages.problems().prefix(20))")
        let itemPages = written.filter { $0.hasPrefix("preview/items-") }
        #expect(itemPages.count > 3, "pages close early when their cards pass 1.5 MB")
        #expect(pages.pages.values.allSatisfy { $0.bytes <= PreviewBook.maxPageBytes })
        let all = pages.pages.filter { $0.key.hasPrefix("preview/") }.map(\.value.html).joined()
        #expect(all.contains("… and 1980 more warnings (see the manifest)"))
        #expect(all.contains("too much for a page of the preview"))
        #expect(all.contains(#"id="item-31""#))
    }

    @Test func aSecondRunRemovesStalePages() throws {
        let folder = try BookFolder()
        let items = Sample.manifest(Campaign.items(1_000)).items
        let (_, large) = try folder.write(items, pageSize: 100)
        #expect(large.filter { $0.hasPrefix("preview/items-") }.count == 10)
        // A stranger's file in preview/ stays.
        let stranger = folder.url.appendingPathComponent("preview/notes.txt")
        try Data("mine".utf8).write(to: stranger)
        let (_, smaller) = try folder.write(Array(items.prefix(300)), pageSize: 100)
        var onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("preview").path)
        #expect(Set(onDisk.map { "preview/" + $0 }) == Set(smaller.dropLast()).union(["preview/notes.txt"]))
        #expect(folder.load(smaller).problems().isEmpty)
        // Small again: the pages go, the stranger's file (and so the folder) stays.
        let (_, single) = try folder.write(Array(items.prefix(20)), pageSize: 100)
        #expect(single == ["preview.html"])
        onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("preview").path)
        #expect(onDisk == ["notes.txt"])
        try FileManager.default.removeItem(at: stranger)
        _ = try folder.write(Array(items.prefix(20)), pageSize: 100)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("preview").path))
    }

    @Test func aFinishedBookRefusesMore() throws {
        let folder = try BookFolder()
        let (book, _) = try folder.write([Sample.image("a.jpg")])
        #expect(throws: PreviewBookError.finished) { try book.add(Sample.image("b.jpg")) }
        #expect(throws: PreviewBookError.finished) { try book.finish() }
    }

    @Test func boundedTallies() {
        var top = TopK<Int>(capacity: 3, isBetter: >)
        for n in [5, 1, 9, 7, 3, 9, 2] { top.offer(n) }
        #expect(top.sorted == [9, 9, 7])

        var exact = DistinctFiles(capacity: 100)
        for n in 0..<250 { exact.add(file: "f\(n % 80)", bytes: 10) }
        #expect(!exact.isEstimate && exact.files == 80 && exact.bytes == 800 && exact.attachmentBytes == 2_500)
        var sketch = DistinctFiles(capacity: 1024)
        for n in 0..<60_000 { sketch.add(file: "\(n % 30_000)-thumb.jpg", bytes: 1_000 + n % 30_000) }
        #expect(sketch.isEstimate)
        #expect(abs(Double(sketch.files) - 30_000) / 30_000 < 0.1, "\(sketch.files)")
        let bytes = Double((0..<30_000).reduce(0) { $0 + 1_000 + $1 })
        #expect(abs(Double(sketch.bytes) - bytes) / bytes < 0.1, "\(sketch.bytes)")

        var sample = EvenSample<Int>(capacity: 8)
        for n in 0..<1_000 { sample.offer { n } }
        #expect(sample.kept.count <= 8 && sample.kept.count >= 4)
        #expect(sample.kept.first == 0 && sample.kept.last! >= 500)
        let gaps = zip(sample.kept.dropFirst(), sample.kept).map { $0 - $1 }
        #expect(Set(gaps).count == 1, "evenly spread: \(sample.kept)")

        #expect(PageSeries.fileName(.items, 7) == "items-0007.html")
        #expect(PageSeries.fileName(.failed, 12_345) == "failed-12345.html")
        #expect(PageSeries.parse("warned-0003.html")! == (.warned, 3))
        #expect(PageSeries.parse("items-1.html") == nil && PageSeries.parse("other-0001.html") == nil)
    }
}

/// Campaigns made in code: some failed, some with warnings, long names, names with markup,
/// files in shard folders and shared between items.
enum Campaign {
    static func items(_ count: Int) -> [Item] {
        (0..<count).map { i in
            let long = i % 101 == 7 ? "/" + String(repeating: "a-rather-long-folder-name-", count: 12) : ""
            let markup = i % 250 == 3 ? "<script>alert(\"\(i)\")</script>" : ""
            let source = "cat\(long)/\(String(repeating: "0", count: 5 - String(i).count))\(i)\(markup).jpg"
            if i % 37 == 5 { return Sample.failed(source, message: "cannot decode item \(i) <b>") }
            let warnings = i % 11 == 2 ? ["transcoded \(i)", "dropped <frames> of \(i)"] : []
            let shard = String(i % 256, radix: 16).count == 1 ? "0" + String(i % 256, radix: 16) : String(i % 256, radix: 16)
            return Sample.image(
                source, thumbFile: "\(shard)/\(i)-thumb.jpg",
                expandedFile: i % 3 == 0 ? "shared-expanded.jpg" : "\(shard)/\(i) expanded.jpg",
                thumbBytes: 10_000 + i, expandedBytes: 50_000 + (i * 7_919) % 900_000, warnings: warnings)
        }
    }
}

/// A temporary folder to write books into (removed with the object), and the pages read back.
final class BookFolder {
    let url: URL
    private let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pushmedia-book-\(UUID().uuidString)")
        url = root.appendingPathComponent("review")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes `items` (manifest order) as a book into the folder.
    func write(
        _ items: [Item], renderer: PreviewRenderer = PreviewRenderer(), prefix: String = "",
        pageSize: Int = PreviewBook.defaultPageSize
    ) throws -> (PreviewBook, [String]) {
        let manifest = Sample.manifest([])
        let book = PreviewBook(
            renderer: renderer, directory: url, attachmentsPrefix: prefix, generator: manifest.generator,
            generatedAt: manifest.generatedAt, profile: manifest.profile, pageSize: pageSize)
        for item in items { try book.add(item) }
        return (book, try book.finish())
    }

    func read(_ path: String) -> String {
        (try? String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    func load(_ paths: [String]) -> BookPages {
        BookPages(pages: Dictionary(uniqueKeysWithValues: paths.map { ($0, BookPage(html: read($0))) }))
    }
}

/// A page read back, with its attribute values found once (the pages are large).
struct BookPage {
    let html: String
    let bytes: Int
    private let attributes: [String: [String]]
    let ids: Set<String>

    init(html: String) {
        self.html = html
        bytes = html.utf8.count
        attributes = Self.scan(Array(html.utf8))
        ids = Set(attributes["id"] ?? [])
    }

    func values(_ name: String) -> [String] { attributes[name] ?? [] }

    /// Every ` name="value"` in the markup, by name (values stay escaped).
    static func scan(_ bytes: [UInt8]) -> [String: [String]] {
        var out: [String: [String]] = [:]
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "="), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") else {
                i += 1
                continue
            }
            var start = i
            while start > 0, bytes[start - 1] == UInt8(ascii: "-") || (bytes[start - 1] >= UInt8(ascii: "a") && bytes[start - 1] <= UInt8(ascii: "z"))
            {
                start -= 1
            }
            guard start > 0, start < i, bytes[start - 1] == UInt8(ascii: " ") else {
                i += 1
                continue
            }
            var end = i + 2
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            out[name, default: []].append(String(decoding: bytes[(i + 2)..<min(end, bytes.count)], as: UTF8.self))
            i = end + 1
        }
        return out
    }
}

/// The pages of a book, by path relative to its folder.
struct BookPages {
    let pages: [String: BookPage]

    /// What is wrong: a page over 2 MB, a link to a page that was not written or to an anchor
    /// it does not have, a page count not filled in, a placeholder or a script left.
    func problems() -> [String] {
        var problems: [String] = []
        for (path, page) in pages {
            if page.bytes > PreviewBook.maxPageBytes { problems.append("\(path): \(page.bytes) bytes") }
            if page.html.contains("{{") { problems.append("\(path): a placeholder left") }
            if page.html.contains("<script") { problems.append("\(path): a script") }
            if !page.html.contains("Content-Security-Policy") { problems.append("\(path): no CSP") }
            if page.html.contains(#"<span class="pages">?"#) { problems.append("\(path): page count not filled in") }
            let folder = path.split(separator: "/").dropLast().joined(separator: "/")
            for href in page.values("href") where href.contains(".html") {
                let parts = href.split(separator: "#", maxSplits: 1).map(String.init)
                var resolved: [String] = []
                for part in ((folder.isEmpty ? "" : folder + "/") + parts[0]).split(separator: "/") {
                    if part == ".." { if resolved.popLast() == nil { resolved.append("..") } } else { resolved.append(String(part)) }
                }
                let target = resolved.joined(separator: "/")
                guard let linked = pages[target] else {
                    problems.append("\(path): \(href) leads to \(target), not written")
                    continue
                }
                if parts.count == 2, !linked.ids.contains(parts[1]) { problems.append("\(path): \(href) has no anchor") }
            }
        }
        return problems
    }
}
