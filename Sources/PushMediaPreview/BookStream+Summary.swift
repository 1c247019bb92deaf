import Foundation
import PushMediaModel

// The summary page of a paged preview: the single page's frame (PreviewTemplate.page) with the
// book's tallies in it. Every table is bounded, so the page is too (about 1.7 MB at worst,
// mostly when every text is as long as the clips allow; ~100 KB usually).
extension BookStream {
    /// Page links listed per series before they are thinned out (every n-th page).
    static let maxPageLinks = 5_000
    /// A sample card larger than this is left out of the summary (it is on its page).
    static let maxSampleCardBytes = 24 * 1024
    /// An outlier row larger than this (a very long file name) is shown without its size row.
    static let maxOutlierRowBytes = 8 * 1024

    /// `preview.html`. `compact` leaves out the sample and lists fewer page links: the fallback
    /// should the page come out larger than ``PreviewBook/maxPageBytes``.
    func summaryPage(compact: Bool) -> String {
        let base = PreviewBook.folderName + "/"
        let linkCap = compact ? 500 : Self.maxPageLinks
        let facts = PreviewRenderer.PageFacts(
            total: total, ok: ok, failed: failed, warned: warned,
            bytesToHost: files.bytes,
            bytesToHostText: (files.isEstimate ? "≈ " : "") + Format.bytes(files.bytes),
            filesToHostText: filesText(),
            largest: largest)

        let slow = slowest.sorted
        let homes = Dictionary(slow.map { ($0.estimate.item, $0.home) }, uniquingKeysWith: { a, _ in a })
        let heading =
            withAttachments > slow.count
            ? "The \(slow.count) slowest downloads of \(withAttachments)" : "Download time on a slow link"
        let estimates = renderer.estimatesTable(
            slow.map(\.estimate), heading: heading, target: chrome.target,
            href: { base + (homes[$0.item] ?? "") })

        var failures = HTML.empty
        if failed > 0 {
            let shown = firstFailures.count
            let text =
                shown < failed
                ? "The first \(shown) of \(failed) are above. All of them, \(pageSize) a page:"
                : "The same on a page of their own:"
            failures = renderer.failuresSection(
                count: failed, rows: firstFailures.map { failureLinkRow($0, base: base) },
                more: more(text, series: failedPages, cap: linkCap))
        }

        var sections: [HTML] = []
        if outliers.count > 0 { sections.append(outliersSection(base: base)) }
        // After the failures and outliers (on the single page, in the header).
        sections.append(PreviewTemplate.panel.fill(["content": .html(estimates)]))
        if warned > 0 {
            let shown = firstWarned.count
            let text =
                shown < warned
                ? "The first \(shown) of \(warned) are above (the first warnings of each). All of them, with every warning, \(pageSize) a page:"
                : "The same, with every warning, on a page of their own:"
            sections.append(
                PreviewTemplate.warnedSection.fill([
                    "count": .text(String(warned)),
                    "rows": .html(HTML.joined(firstWarned.map { warnedRow($0, base: base) })),
                    "more": .html(more(text, series: warnedPages, cap: linkCap)),
                ]))
        }
        if !compact, let sampleSection = sampleSection(base: base) { sections.append(sampleSection) }
        sections.append(itemPagesSection(cap: linkCap))

        return renderer.page(
            title: "Push preview · \(total) items · \(chrome.generatedAt)", style: chrome.style,
            generator: chrome.generator, generatedAt: chrome.generatedAt, profile: chrome.profile, facts: facts,
            target: chrome.target, estimates: .empty, failures: failures, items: HTML.joined(sections)
        ).markup
    }

    /// Under the bytes to host: how many files, and whether they were counted or estimated.
    func filesText() -> String {
        guard files.isEstimate else {
            return "in \(files.files) file\(files.files == 1 ? "" : "s")"
        }
        return "≈ \(files.files) distinct files, estimated from a sample of their names (typically within a few percent); "
            + "\(Format.bytes(files.attachmentBytes)) in \(files.attachments) attachments before sharing"
    }

    func failureLinkRow(_ failure: Failure, base: String) -> HTML {
        PreviewTemplate.failureLinkRow.fill([
            "href": .attribute(base + failure.home),
            "source": .text(failure.source),
            "encoding": .html(renderer.encodingNote(failure.sourceEncoding)),
            "kind": .text(failure.kind),
            "code": .text(failure.code),
            "message": .text(failure.message),
        ])
    }

    /// A line and the links to the pages of `series`.
    func more(_ text: String, series: PageSeries, cap: Int) -> HTML {
        let (links, note) = pageLinks(series, cap: cap)
        return PreviewTemplate.more.fill(["text": .text(text + note), "links": .html(links)])
    }

    /// Links to every page of `series`; past `cap` pages, to every n-th page (the first and the
    /// last always), and a note saying so.
    func pageLinks(_ series: PageSeries, cap: Int) -> (HTML, String) {
        let pages = series.pages
        guard pages > 0 else { return (.empty, "") }
        let step = pages <= cap ? 1 : (pages + cap - 1) / cap
        var numbers = Array(stride(from: 1, through: pages, by: step))
        if numbers.last != pages { numbers.append(pages) }
        let links = HTML.joined(
            numbers.map { page in
                PreviewTemplate.pageLink.fill([
                    "href": .url(PreviewBook.folderName + "/" + PageSeries.fileName(series.kind, page)), "label": .text(String(page)),
                ])
            })
        let note = step == 1 ? "" : " (every \(step)th page of \(pages) listed; each page links to the next)"
        return (links, note)
    }

    func outliersSection(base: String) -> HTML {
        let rows = outliers.sorted.map { outlier -> HTML in
            let attachment = outlier.attachment
            let ratioText =
                outlier.ratio.isFinite
                ? "\(renderer.percentText(outlier.ratio, of: 1)) of \(outlier.reference)" : outlier.reference
            let state =
                !outlier.ratio.isFinite || (outlier.reference != "budget" && outlier.ratio > 1)
                ? "over" : outlier.ratio > 1 ? "warn" : "ok"
            func row(_ size: HTML) -> HTML {
                PreviewTemplate.outlierRow.fill([
                    "state": .attribute(state),
                    "ratio": .number(outlier.ratio.isFinite ? outlier.ratio : -1),
                    "href": .attribute(base + outlier.home),
                    "source": .text(outlier.source),
                    "encoding": .html(renderer.encodingNote(outlier.sourceEncoding)),
                    "ratioText": .text(ratioText),
                    "size": .html(size),
                ])
            }
            let full = row(renderer.sizeRow(attachment, prefix: attachmentsPrefix))
            guard full.markup.utf8.count > Self.maxOutlierRowBytes else { return full }
            return row(
                PreviewTemplate.note.fill([
                    "text": .text("\(attachment.role.rawValue), \(Format.bytes(attachment.bytes)): its file name is too long to show here")
                ]))
        }
        let budgets = renderer.budgets?.isEmpty == false ? "the budgets given" : "the budgets recorded in the manifest"
        return PreviewTemplate.outliers.fill([
            "hint": .text(
                "the \(rows.count) attachments largest against \(budgets), or against Apple's limit for their type when they have none"),
            "rows": .html(HTML.joined(rows)),
        ])
    }

    func sampleSection(base: String) -> HTML? {
        let cards = sample.pick(Self.sampleCount).compactMap { sampled -> HTML? in
            let card = renderer.card(
                sampled.item, anchor: "sample-" + PreviewRenderer.anchor(sampled.index), prefix: attachmentsPrefix,
                target: chrome.target)
            guard card.markup.utf8.count <= Self.maxSampleCardBytes else { return nil }
            return PreviewTemplate.sampleCard.fill([
                "href": .attribute(base + sampled.home),
                "where": .text("Item \(sampled.index + 1) of \(total), on items page \(sampled.page)"),
                "card": .html(card),
            ])
        }
        guard !cards.isEmpty else { return nil }
        return PreviewTemplate.sample.fill([
            "heading": .text("A sample of \(cards.count) of the \(ok) items"),
            "hint": .text("spread evenly over the campaign (manifest order); every item is on its page below"),
            "cards": .html(HTML.joined(cards)),
        ])
    }

    func itemPagesSection(cap: Int) -> HTML {
        guard items.pages > 0 else {
            return PreviewTemplate.note.fill(["text": "No item was processed."])
        }
        let (links, note) = pageLinks(items, cap: cap)
        return PreviewTemplate.pageIndex.fill([
            "id": .attribute("pages"),
            "heading": .text("All \(ok) items, on \(items.pages) pages"),
            "hint": .text("in manifest order, up to \(pageSize) a page (fewer when the page would pass 1.5 MB)\(note)"),
            "links": .html(links),
        ])
    }
}
