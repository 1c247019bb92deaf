import Foundation
import PushMediaModel
import Testing

@testable import PushMediaPreview

/// Names with bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE reverses what follows it) shown
/// isolated: each in a `<bdi>` element, so only the name itself can be reordered.
@Suite("Preview: names isolated")
struct BidiIsolationTests {
    /// Reads as `photo-exe.jpg` once reversed; the rest of its line must not be.
    static let reversed = "photo-\u{202E}gpj.exe"
    static let failed = "bad-\u{202E}fig.txt"

    /// Where `name` appears in `html` as text (not inside a tag): each occurrence must be the
    /// end of a `<bdi>` element's content, with no `</bdi>` between its opening and the name.
    static func occurrencesOutsideIsolation(_ name: String, in html: String) -> (text: Int, outside: [String]) {
        var text = 0
        var outside: [String] = []
        var search = html.startIndex..<html.endIndex
        while let found = html.range(of: name, options: .literal, range: search) {
            search = found.upperBound..<html.endIndex
            let before = html[..<found.lowerBound]
            let lastOpen = before.range(of: "<", options: [.literal, .backwards])?.lowerBound
            let lastClose = before.range(of: ">", options: [.literal, .backwards])?.lowerBound
            if let lastOpen, lastClose.map({ $0 < lastOpen }) ?? true { continue } // an attribute value
            text += 1
            let opened = before.range(of: "<bdi>", options: [.literal, .backwards])?.lowerBound
            let closed = before.range(of: "</bdi>", options: [.literal, .backwards])?.lowerBound
            let inside = opened.map { open in closed.map { $0 < open } ?? true } ?? false
            if !inside || !html[found.upperBound...].hasPrefix("</bdi>") {
                let start = html.index(found.lowerBound, offsetBy: -40, limitedBy: html.startIndex) ?? html.startIndex
                outside.append(String(html[start..<found.upperBound]))
            }
        }
        return (text, outside)
    }

    @Test("the single page: every name shown in text is a <bdi> element's content, U+202E names included")
    func singlePage() {
        let manifest = Sample.manifest([
            Sample.image(Self.reversed, expandedBytes: 900_000), Sample.image("plain.jpg"), Sample.failed(Self.failed),
        ])
        let html = PreviewRenderer.render(
            manifest: manifest, pageDirectory: URL(fileURLWithPath: "/o"), manifestDirectory: URL(fileURLWithPath: "/o"),
            title: "T", body: "B")
        for name in [Self.reversed, Self.failed, "plain.jpg"] {
            let (text, outside) = Self.occurrencesOutsideIsolation(name, in: html)
            // An ok item: its card and the download estimates; a failed one: its row.
            #expect(text >= (name == Self.failed ? 1 : 2), "\(name) is shown as text \(text) times")
            #expect(outside.isEmpty, "\(name) not isolated: \(outside)")
        }
        // The largest attachment's line ("expanded of <name>") is isolated as a whole.
        #expect(html.contains("<bdi>expanded of \(Self.reversed)</bdi>"))
    }

    @Test("the book: cards, failure rows and each page's range of sources isolate every name")
    func book() throws {
        let folder = try BookFolder()
        let (_, paths) = try folder.write([Sample.image(Self.reversed), Sample.failed(Self.failed), Sample.image("z.jpg")], pageSize: 1)
        var shown = 0
        for path in paths {
            let html = folder.read(path)
            for name in [Self.reversed, Self.failed] {
                let (text, outside) = Self.occurrencesOutsideIsolation(name, in: html)
                shown += text
                #expect(outside.isEmpty, "\(path): \(name) not isolated: \(outside)")
            }
        }
        #expect(shown >= 4, "the names were shown \(shown) times in the book")
        // A page of one item names it as its range, isolated, before the count.
        let pages = paths.map(folder.read)
        #expect(pages.contains { $0.contains("<bdi>\(Self.reversed)</bdi> · 1 item on this page") })
    }
}
