import Foundation
import PushMediaModel

/// The paged part of a ``PreviewBook``: puts each item on its pages as it arrives and keeps
/// what the summary needs in bounded structures (counts, the first failures and warnings, the
/// top K outliers and slowest downloads, a sample of ok items, the distinct-files sketch).
final class BookStream {
    /// Failures listed on the summary.
    static let inlineFailures = 50
    /// Items with warnings listed on the summary (the first warnings of each).
    static let inlineWarned = 20
    /// Rows of the outliers and slowest-downloads tables.
    static let topCount = 20
    /// Cards in the summary's sample.
    static let sampleCount = 12
    /// A source in the summary's tables is cut to this many characters.
    static let clipCharacters = 300

    /// An attachment against its budget (or its type's limit).
    struct Outlier {
        var ratio: Double
        var index: Int
        var home: String
        var source: String
        var sourceEncoding: SourceEncoding?
        var attachment: Attachment
        /// What `ratio` is against: "budget", "image limit"…
        var reference: String
    }

    /// An item's download estimate, and where its card is.
    struct Slow {
        var estimate: PreviewSummary.ItemEstimate
        var home: String
    }

    /// A failure for the summary's table (texts cut).
    struct Failure {
        var home: String
        var source: String
        var sourceEncoding: SourceEncoding?
        var kind: String
        var code: String
        var message: String
    }

    /// An item with warnings for the summary's table (its first warnings, cut).
    struct Warned {
        var home: String
        var source: String
        var sourceEncoding: SourceEncoding?
        var warnings: [String]
    }

    /// An ok item of the sample.
    struct Sampled {
        var item: Item
        var index: Int
        var page: Int
        var home: String
    }

    let chrome: BookChrome
    let attachmentsPrefix: String
    let pageSize: Int
    let items: PageSeries
    let failedPages: PageSeries
    let warnedPages: PageSeries
    var series: [PageSeries] { [items, failedPages, warnedPages] }
    var pageCounts: [PageSeries.Kind: Int] { Dictionary(uniqueKeysWithValues: series.map { ($0.kind, $0.pages) }) }

    var total = 0
    var ok = 0
    var failed = 0
    var warned = 0
    /// Items that have attachments (the ones with a download estimate).
    var withAttachments = 0
    var files = DistinctFiles()
    var largest: (bytes: Int, detail: String)?
    var outliers = TopK<Outlier>(capacity: BookStream.topCount) {
        $0.ratio > $1.ratio || ($0.ratio == $1.ratio && $0.index < $1.index)
    }
    var slowest = TopK<Slow>(capacity: BookStream.topCount) {
        $0.estimate.seconds > $1.estimate.seconds
            || ($0.estimate.seconds == $1.estimate.seconds && $0.estimate.item < $1.estimate.item)
    }
    var firstFailures: [Failure] = []
    var firstWarned: [Warned] = []
    var sample: EvenSample<Sampled>
    var sampleHeld: Int { sample.kept.count }

    init(chrome: BookChrome, folder: URL, attachmentsPrefix: String, pageSize: Int, sampleCapacity: Int) {
        self.chrome = chrome
        self.attachmentsPrefix = attachmentsPrefix
        self.pageSize = pageSize
        func series(_ kind: PageSeries.Kind) -> PageSeries {
            PageSeries(kind, folder: folder, chrome: chrome, pageSize: pageSize, fillBytes: PreviewBook.pageFillBytes)
        }
        items = series(.items)
        failedPages = series(.failed)
        warnedPages = series(.warned)
        sample = EvenSample(capacity: sampleCapacity)
    }

    var renderer: PreviewRenderer { chrome.renderer }

    /// Puts the item at `index` (0-based, manifest order) on its pages and into the tallies.
    func add(_ item: Item, index: Int) throws {
        total += 1
        let anchor = PreviewRenderer.anchor(index)
        // The item's anchor, relative to the pages' folder.
        let home: String
        switch item.status {
        case .ok:
            ok += 1
            let page = try items.append(card(item, anchor: anchor), label: Clip.text(item.source, 200))
            home = PageSeries.fileName(.items, page) + "#" + anchor
            sample.offer { Sampled(item: item, index: index, page: page, home: home) }
        case .failed:
            failed += 1
            let row = fitted(item) { renderer.failureRow($0, anchor: anchor) }
            let page = try failedPages.append(row, label: Clip.text(item.source, 200))
            home = PageSeries.fileName(.failed, page) + "#" + anchor
            if firstFailures.count < Self.inlineFailures {
                firstFailures.append(
                    Failure(
                        home: home, source: Clip.text(item.source, Self.clipCharacters), sourceEncoding: item.sourceEncoding,
                        kind: item.kind.rawValue, code: item.error?.code.rawValue ?? "unknown",
                        message: Clip.text(item.error?.message ?? "no error recorded", Self.clipCharacters)))
            }
        }
        if !item.warnings.isEmpty {
            warned += 1
            let row = fitted(item) {
                warnedRow(Warned(home: home, source: $0.source, sourceEncoding: $0.sourceEncoding, warnings: $0.warnings), base: "")
            }
            _ = try warnedPages.append(row, label: Clip.text(item.source, 200))
            if firstWarned.count < Self.inlineWarned {
                firstWarned.append(
                    Warned(
                        home: home, source: Clip.text(item.source, Self.clipCharacters), sourceEncoding: item.sourceEncoding,
                        warnings: Clip.warnings(item.warnings, count: 3, characters: Self.clipCharacters)))
            }
        }
        tally(item, index: index, home: home)
    }

    /// Bytes to host, the largest attachment, outliers, download estimates.
    private func tally(_ item: Item, index: Int, home: String) {
        guard !item.attachments.isEmpty else { return }
        var bytes = 0
        for attachment in item.attachments {
            files.add(file: attachment.file, bytes: attachment.bytes)
            bytes += attachment.bytes
            if attachment.bytes > largest?.bytes ?? -1 {
                largest = (attachment.bytes, "\(attachment.role.rawValue) of \(Clip.text(item.source, Self.clipCharacters))")
            }
            let (ratio, reference) = budgetRatio(attachment)
            if outliers.count < outliers.capacity || ratio >= outliers.worst?.ratio ?? 0 {
                outliers.offer(
                    Outlier(
                        ratio: ratio, index: index, home: home, source: Clip.text(item.source, Self.clipCharacters),
                        sourceEncoding: item.sourceEncoding, attachment: attachment, reference: reference))
            }
        }
        withAttachments += 1
        let seconds = DownloadEstimate.seconds(bytes: bytes, bitsPerSecond: chrome.target.bitsPerSecond)
        slowest.offer(
            Slow(
                estimate: PreviewSummary.ItemEstimate(
                    item: index, source: Clip.text(item.source, Self.clipCharacters), sourceEncoding: item.sourceEncoding,
                    bytes: bytes, seconds: seconds),
                home: home))
    }

    /// The attachment's bytes against the budget it had to meet (recorded, else the renderer's
    /// for its role), else against Apple's limit for its type; infinite for a type iOS refuses.
    func budgetRatio(_ attachment: Attachment) -> (Double, String) {
        let bytes = Double(attachment.bytes)
        if let budget = attachment.budget ?? renderer.budgets?[attachment.role], budget > 0 {
            return (bytes / Double(budget), "budget")
        }
        if let type = AttachmentType.forExtension(attachment.fileExtension) ?? AttachmentType.forTypeHint(attachment.typeHint) {
            return (bytes / Double(type.maxBytes), "\(type.category.rawValue) limit")
        }
        return (.infinity, "not a type iOS accepts")
    }

    /// Writes the last pages and their page counts.
    func close() throws {
        for series in series {
            try series.close()
            try series.fillPageCounts()
        }
    }

    // MARK: - Fragments

    /// The item's card for an items page: shortened (``Clip/item(_:)``) when too large, or a
    /// note in its place when even that is.
    func card(_ item: Item, anchor: String) -> HTML {
        let prefix = "../" + attachmentsPrefix
        let full = renderer.card(item, anchor: anchor, prefix: prefix, target: chrome.target)
        let size = full.markup.utf8.count
        guard size > PreviewBook.maxFragmentBytes else { return full }
        let short = renderer.card(Clip.item(item), anchor: anchor, prefix: prefix, target: chrome.target)
        guard short.markup.utf8.count > PreviewBook.maxFragmentBytes else { return short }
        let source = Clip.text(item.source, 1000)
        return PreviewTemplate.oversizeItem.fill([
            "anchor": .attribute(anchor), "sourceAttr": .attribute(source), "source": .text(source),
            "encoding": .html(renderer.encodingNote(item.sourceEncoding)),
            "text": .text("This item's card would take \(Format.bytes(size)) of HTML, too much for a page of the preview: see the manifest."),
        ])
    }

    /// `make(item)`, or `make` of the item with its texts shortened when that is too large.
    /// (Rows hold only texts, which ``Clip/item(_:)`` bounds.)
    private func fitted(_ item: Item, _ make: (Item) -> HTML) -> HTML {
        let full = make(item)
        return full.markup.utf8.count <= PreviewBook.maxFragmentBytes ? full : make(Clip.item(item))
    }

    /// A row of the warnings table, linked to `base + warned.home`.
    func warnedRow(_ warned: Warned, base: String) -> HTML {
        PreviewTemplate.warnedRow.fill([
            "href": .attribute(base + warned.home),
            "source": .text(warned.source),
            "encoding": .html(renderer.encodingNote(warned.sourceEncoding)),
            "warnings": .html(
                PreviewTemplate.warnings.fill([
                    "items": .html(HTML.joined(warned.warnings.map { PreviewTemplate.warning.fill(["text": .text($0)]) }))
                ])),
        ])
    }
}
