import Foundation
import PushMediaModel

/// What every page of a paged preview shares: the renderer, the manifest's facts, the style.
struct BookChrome {
    let renderer: PreviewRenderer
    let generator: Manifest.Generator
    let generatedAt: String
    let profile: Profile
    let target: DeliveryTarget
    /// The single page's style sheet and the book's additions.
    let style = HTML.joined([PreviewStyle.css, PreviewStyle.book])

    var generatorName: String { "\(generator.name) \(generator.version)" }

    /// The `<head>` (with the Content-Security-Policy) and `<body>` tag of a page.
    func document(title: String) -> HTML {
        PreviewTemplate.document.fill([
            "generator": .attribute(generatorName), "title": .text(title), "style": .html(style),
        ])
    }

    /// The start of page `page` of a series, up to its number of pages. Depends on nothing
    /// else, so ``PageSeries/fillPageCounts()`` can find the field after it.
    func head(_ kind: PageSeries.Kind, page: Int) -> String {
        PreviewTemplate.bookPageHead.fill([
            "head": .html(document(title: "Push preview · \(kind.title) · page \(page) · \(generatedAt)")),
            "previous": .html(page > 1 ? pagerLink("prev", PageSeries.fileName(kind, page - 1), "← Previous") : .empty),
            "series": .text(kind.title),
            "page": .text(String(page)),
        ]).markup
    }

    /// The rest of page `page`, after its number of pages: the next link, the range of sources
    /// on it, the fragments in the series' frame, the footer.
    func tail(
        _ kind: PageSeries.Kind, page: Int, hasNext: Bool, fragments: [HTML], first: String, last: String
    ) -> String {
        let body: HTML
        switch kind {
        case .items:
            body = PreviewTemplate.itemsBody.fill(["cards": .html(HTML.joined(fragments))])
        case .failed:
            body = renderer.failuresSection(count: fragments.count, rows: fragments)
        case .warned:
            body = PreviewTemplate.warnedSection.fill([
                "count": .text(String(fragments.count)), "rows": .html(HTML.joined(fragments)), "more": .html(.empty),
            ])
        }
        let count = "\(fragments.count) \(fragments.count == 1 ? "item" : "items") on this page"
        // Each source isolated (`<bdi>`): a name's bidi controls cannot reorder the rest of the line.
        let sources = first == last ? HTML.isolated(first).markup : HTML.isolated(first).markup + " – " + HTML.isolated(last).markup
        let range = HTML(trusted: sources + " · " + HTMLEscaping.text(count))
        let next = hasNext ? pagerLink("next", PageSeries.fileName(kind, page + 1), "Next →") : .empty
        return PreviewTemplate.bookPageTail.fill([
            "next": .html(next),
            "heading": .text("\(kind.title) · page \(page)"),
            "range": .html(range),
            "generatedAt": .text(generatedAt),
            "profile": .text(profile.name),
            "generator": .attribute(generatorName),
            "body": .html(body),
            "previous": .html(page > 1 ? pagerLink("prev", PageSeries.fileName(kind, page - 1), "← Previous") : .empty),
            "footer": .html(PreviewTemplate.footer.fill(["link": .text(target.link)])),
        ]).markup
    }

    private func pagerLink(_ rel: String, _ file: String, _ label: String) -> HTML {
        PreviewTemplate.pagerLink.fill(["rel": .attribute(rel), "href": .url(file), "label": .text(label)])
    }
}

/// One numbered series of pages in `preview/`: `items-0001.html`, `items-0002.html`… Holds the
/// fragments (cards or rows) of the page being filled, at most `pageSize` of them; a page is
/// written when the next fragment does not fit (it has `pageSize` already, or the fragment
/// would take its fragments past `fillBytes`), and the last one by ``close()``.
///
/// "Page N of M": M is known only at the end, so each page is written with a fixed-width field
/// for it (``countWidth`` characters, `?` at first) right after ``BookChrome/head(_:page:)``,
/// and ``fillPageCounts()`` writes the number into every page in place.
final class PageSeries {
    enum Kind: String, CaseIterable {
        case items
        case failed
        case warned

        var title: String {
            switch self {
            case .items: "Items"
            case .failed: "Failed items"
            case .warned: "Items with warnings"
            }
        }
    }

    /// Characters of the page-count field.
    static let countWidth = 10

    let kind: Kind
    let folder: URL
    let chrome: BookChrome
    let pageSize: Int
    let fillBytes: Int
    /// Pages written so far.
    private(set) var pages = 0
    /// The most fragments held at once (for the tests: never more than `pageSize`).
    private(set) var maxFragmentsHeld = 0
    private var fragments: [HTML] = []
    private var bytes = 0
    private var first = ""
    private var last = ""

    init(_ kind: Kind, folder: URL, chrome: BookChrome, pageSize: Int, fillBytes: Int) {
        self.kind = kind
        self.folder = folder
        self.chrome = chrome
        self.pageSize = max(1, pageSize)
        self.fillBytes = fillBytes
    }

    /// `page-0001.html`: the page number with at least four digits.
    static func fileName(_ kind: Kind, _ page: Int) -> String {
        let digits = String(page)
        return "\(kind.rawValue)-\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits).html"
    }

    /// The files written, relative to the book's directory.
    var paths: [String] {
        pages == 0 ? [] : (1...pages).map { "\(PreviewBook.folderName)/\(Self.fileName(kind, $0))" }
    }

    /// Adds `fragment` (named by `label`, e.g. its source, for the page's range) and returns the
    /// number of the page it is on. May write the page before it first.
    func append(_ fragment: HTML, label: String) throws -> Int {
        let size = fragment.markup.utf8.count
        if !fragments.isEmpty, fragments.count >= pageSize || bytes + size > fillBytes {
            try writePage(hasNext: true)
        }
        if fragments.isEmpty { first = label }
        last = label
        fragments.append(fragment)
        bytes += size
        maxFragmentsHeld = max(maxFragmentsHeld, fragments.count)
        return pages + 1
    }

    /// Writes the last page, if it has anything.
    func close() throws {
        if !fragments.isEmpty { try writePage(hasNext: false) }
    }

    private func writePage(hasNext: Bool) throws {
        let page = pages + 1
        let html =
            chrome.head(kind, page: page) + Self.countField(nil)
            + chrome.tail(kind, page: page, hasNext: hasNext, fragments: fragments, first: first, last: last)
        try AtomicFile.write(Data(html.utf8), to: folder.appendingPathComponent(Self.fileName(kind, page)), sync: false)
        pages = page
        fragments.removeAll(keepingCapacity: true)
        bytes = 0
    }

    /// The page-count field: `pages`, or `?` while unknown, padded with spaces.
    static func countField(_ pages: Int?) -> String {
        let text = pages.map(String.init) ?? "?"
        return text + String(repeating: " ", count: max(0, countWidth - text.count))
    }

    /// Writes the number of pages into every page of the series, in place.
    func fillPageCounts() throws {
        guard pages > 0 else { return }
        let placeholder = Data(Self.countField(nil).utf8)
        let field = Data(Self.countField(pages).utf8)
        for page in 1...pages {
            let url = folder.appendingPathComponent(Self.fileName(kind, page))
            let offset = UInt64(chrome.head(kind, page: page).utf8.count)
            let handle = try FileHandle(forUpdating: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: offset)
            guard try handle.read(upToCount: placeholder.count) == placeholder else {
                throw PreviewBookError.pageChanged(url.path)
            }
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: field)
        }
    }

    /// Removes the pages of `folder` that are not part of the book just written: numbers past
    /// `pages[kind]` (an earlier, larger run), and temporary files a crashed run left. Only names
    /// this type writes are touched.
    static func removeStale(in folder: URL, keeping pages: [Kind: Int]) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            return // no folder: nothing to remove
        }
        for name in names {
            let stale: Bool
            if let (kind, page) = parse(name) {
                stale = page > pages[kind, default: 0]
            } else {
                stale = name.hasPrefix(".") && name.hasSuffix(".tmp") && parse(String(name.dropFirst().prefix { $0 != "~" })) != nil
            }
            if stale { try FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        }
    }

    /// `items-0012.html` → (.items, 12).
    static func parse(_ name: String) -> (Kind, Int)? {
        guard name.hasSuffix(".html"), let dash = name.firstIndex(of: "-") else { return nil }
        guard let kind = Kind(rawValue: String(name[..<dash])) else { return nil }
        let digits = name[name.index(after: dash)..<name.index(name.endIndex, offsetBy: -5)]
        guard digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let page = Int(digits), page > 0 else {
            return nil
        }
        return (kind, page)
    }
}

/// Shortened texts for the summary's tables and for items too large for a page.
enum Clip {
    /// `text` cut to `characters` characters, with `…` when cut.
    static func text(_ text: String, _ characters: Int) -> String {
        guard text.count > characters else { return text }
        return String(text.prefix(characters)) + "…"
    }

    /// `item` with its texts shortened: source and error message to 1,000 characters, the
    /// first 20 warnings to 1,000 characters each (and a line saying how many more there are).
    static func item(_ item: Item) -> Item {
        var short = item
        short.source = text(item.source, 1000)
        if var error = item.error {
            error.message = text(error.message, 1000)
            short.error = error
        }
        short.warnings = warnings(item.warnings, count: 20, characters: 1000)
        return short
    }

    /// The first `count` of `warnings`, each cut to `characters`, and a line for the rest.
    static func warnings(_ warnings: [String], count: Int, characters: Int) -> [String] {
        var out = warnings.prefix(count).map { text($0, characters) }
        if warnings.count > count { out.append("… and \(warnings.count - count) more warnings (see the manifest)") }
        return out
    }
}
