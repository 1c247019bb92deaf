import Foundation
import PushMediaModel

/// Renders a manifest as `preview.html`: one self-contained page that shows every item's
/// notification as iOS draws it, collapsed and expanded, with sizes, warnings and failures.
///
/// Pure: it reads no files. Images are referenced relative to the page, so the page must be
/// written into `pageDirectory` and the attachments must be in `manifestDirectory` (next to the
/// manifest). Every string from the manifest is escaped (see ``HTMLEscaping``); the page has no
/// scripts and forbids them with a Content-Security-Policy.
///
/// ```swift
/// let html = PreviewRenderer(title: "Spring sale").render(
///     manifest: manifest, pageDirectory: outputFolder, manifestDirectory: outputFolder)
/// ```
public struct PreviewRenderer: Sendable {
    /// The title shown when none is given.
    public static let defaultTitle = "Campaign title"
    /// The body shown when none is given.
    public static let defaultBody = "Campaign message: the text under the title, as the notification shows it."

    /// Notification title, shown in every card.
    public var title: String
    /// Notification body, shown in every card.
    public var body: String
    /// Byte budgets per attachment role (e.g. thumbnail 150 KB), drawn as a bar next to the bar
    /// for Apple's hard limit. Nil or a missing role: only the hard limit.
    public var budgets: [Attachment.Role: Int]?
    /// The link speed of the download estimate; nil (the default): the manifest profile's
    /// delivery link.
    public var bitsPerSecond: Int?

    /// A renderer with the texts and budgets to show.
    public init(
        title: String = PreviewRenderer.defaultTitle,
        body: String = PreviewRenderer.defaultBody,
        budgets: [Attachment.Role: Int]? = nil,
        bitsPerSecond: Int? = nil
    ) {
        self.title = title
        self.body = body
        self.budgets = budgets
        self.bitsPerSecond = bitsPerSecond
    }

    /// The page for `manifest`, as one HTML string.
    ///
    /// - Parameters:
    ///   - pageDirectory: the folder the page will be written into.
    ///   - manifestDirectory: the folder of the manifest, which holds the attachment files.
    ///   - title, body: the notification's texts (defaults: ``defaultTitle``, ``defaultBody``).
    ///   - budgets: optional byte budgets per role.
    public static func render(
        manifest: Manifest, pageDirectory: URL, manifestDirectory: URL,
        title: String? = nil, body: String? = nil, budgets: [Attachment.Role: Int]? = nil
    ) -> String {
        PreviewRenderer(title: title ?? defaultTitle, body: body ?? defaultBody, budgets: budgets)
            .render(manifest: manifest, pageDirectory: pageDirectory, manifestDirectory: manifestDirectory)
    }

    /// The page for `manifest`, as one HTML string; see ``render(manifest:pageDirectory:manifestDirectory:title:body:budgets:)``.
    ///
    /// One page for the whole manifest, whatever its size (about 5 KB of HTML per item). For
    /// campaigns of thousands of items, write a ``PreviewBook`` instead: the same page while the
    /// campaign is small, a summary and pages of items beyond.
    public func render(manifest: Manifest, pageDirectory: URL, manifestDirectory: URL) -> String {
        singlePage(
            items: manifest.items, generator: manifest.generator, generatedAt: manifest.generatedAt,
            profile: manifest.profile, prefix: RelativePath.from(pageDirectory, to: manifestDirectory))
    }

    /// The anchor of the item at `index` (0-based) in the manifest: `item-1`, `item-2`… By
    /// position: stable, and free of anything from the manifest (two items may read the same:
    /// a UTF-8 name and an escaped one).
    static func anchor(_ index: Int) -> String { "item-\(index + 1)" }

    /// The single page: every item of `items` (manifest order), failures first.
    ///
    /// - Parameter prefix: the relative path from the page's folder to the attachment files'
    ///   folder, `""` or ending in `/`.
    func singlePage(items: [Item], generator: Manifest.Generator, generatedAt: String, profile: Profile, prefix: String) -> String {
        let target = DeliveryTarget(profile.delivery, bitsPerSecond: bitsPerSecond)
        let summary = PreviewSummary(items: items, bitsPerSecond: target.bitsPerSecond)
        let failed = items.enumerated().filter { $0.element.status == .failed }
        let processed = items.enumerated().filter { $0.element.status == .ok }
        let facts = PageFacts(
            total: summary.total, ok: summary.ok, failed: summary.failed, warned: summary.warned,
            bytesToHost: summary.bytesToHost, bytesToHostText: Format.bytes(summary.bytesToHost),
            filesToHostText: "in \(summary.filesToHost) file\(summary.filesToHost == 1 ? "" : "s")",
            largest: summary.largest.map { ($0.attachment.bytes, "\($0.attachment.role.rawValue) of \($0.source)") })
        let estimates = estimatesTable(
            summary.estimates, heading: "Download time on a slow link", target: target,
            href: { "#" + Self.anchor($0.item) })
        let failures =
            failed.isEmpty
            ? HTML.empty
            : failuresSection(count: failed.count, rows: failed.map { failureRow($0.element, anchor: Self.anchor($0.offset)) })
        let cards =
            processed.isEmpty
            ? PreviewTemplate.note.fill(["text": "No item was processed."])
            : HTML.joined(processed.map { card($0.element, anchor: Self.anchor($0.offset), prefix: prefix, target: target) })
        return page(
            title: "Push preview · \(summary.total) items · \(generatedAt)", style: PreviewStyle.css,
            generator: generator, generatedAt: generatedAt, profile: profile, facts: facts, target: target,
            estimates: estimates, failures: failures, items: cards
        ).markup
    }

    // MARK: - Summary

    /// The numbers in the summary header.
    struct PageFacts {
        var total: Int
        var ok: Int
        var failed: Int
        var warned: Int
        var bytesToHost: Int
        var bytesToHostText: String
        /// Under the bytes to host: how many files (and how they were counted).
        var filesToHostText: String
        /// The largest attachment's bytes, and what it is (role and source).
        var largest: (bytes: Int, detail: String)?
    }

    /// A whole page: the summary header with `facts` and the `estimates` table, then
    /// `failures` and `items` (both already built).
    func page(
        title: String, style: HTML, generator: Manifest.Generator, generatedAt: String, profile: Profile,
        facts: PageFacts, target: DeliveryTarget, estimates: HTML, failures: HTML, items: HTML
    ) -> HTML {
        let generatorName = "\(generator.name) \(generator.version)"
        return PreviewTemplate.page.fill([
            "head": .html(
                PreviewTemplate.document.fill([
                    "generator": .attribute(generatorName), "title": .text(title), "style": .html(style),
                ])),
            "generator": .attribute(generatorName),
            "generatedAt": .text(generatedAt),
            "profile": .text(profile.name),
            "total": .text(String(facts.total)),
            "ok": .text(String(facts.ok)),
            "failed": .text(String(facts.failed)),
            "failedClass": .attribute(facts.failed > 0 ? "bad" : "good"),
            "warned": .text(String(facts.warned)),
            "warnedClass": .attribute(facts.warned > 0 ? "caution" : ""),
            "bytesToHost": .text(facts.bytesToHostText),
            "bytesToHostRaw": .attribute(String(facts.bytesToHost)),
            "filesToHost": .text(facts.filesToHostText),
            "largestBytes": .text(facts.largest.map { Format.bytes($0.bytes) } ?? "–"),
            "largestDetail": .text(facts.largest?.detail ?? "no attachments"),
            "estimates": .html(estimates),
            "footer": .html(PreviewTemplate.footer.fill(["link": .text(target.link)])),
            "failures": .html(failures),
            "items": .html(items),
        ])
    }

    /// The download-time table: one row per estimate, linked by `href`.
    func estimatesTable(
        _ estimates: [PreviewSummary.ItemEstimate], heading: String, target: DeliveryTarget,
        href: (PreviewSummary.ItemEstimate) -> String
    ) -> HTML {
        guard !estimates.isEmpty else {
            return PreviewTemplate.note.fill(["text": "No attachments to download."])
        }
        let rows = HTML.joined(
            estimates.map { estimate in
                let state = target.state(estimate.seconds)
                return PreviewTemplate.estimateRow.fill([
                    "state": .attribute(state),
                    "secondsRaw": .number(estimate.seconds),
                    "href": .attribute(href(estimate)),
                    "source": .text(estimate.source),
                    "encoding": .html(encodingNote(estimate.sourceEncoding)),
                    "bytes": .text(Format.bytes(estimate.bytes)),
                    "bar": .html(
                        bar(
                            percent: Format.percent(estimate.seconds, of: target.seconds), state: state,
                            label: "\(percentText(estimate.seconds, of: target.seconds)) of \(Format.seconds(target.seconds))")),
                    "seconds": .text(Format.seconds(estimate.seconds)),
                ])
            })
        return PreviewTemplate.estimates.fill([
            "heading": .text(heading),
            "link": .text(target.link), "target": .text(Format.seconds(target.seconds)),
            "limit": .text(Format.seconds(DownloadEstimate.extensionTimeLimitSeconds)), "rows": .html(rows),
        ])
    }

    /// The failures section: `count` failed, `rows` shown, then `more` (links to further pages).
    func failuresSection(count: Int, rows: [HTML], more: HTML = .empty) -> HTML {
        PreviewTemplate.failures.fill([
            "count": .text(String(count)), "rows": .html(HTML.joined(rows)), "more": .html(more),
        ])
    }

    /// One failed item, carrying its anchor.
    func failureRow(_ item: Item, anchor: String) -> HTML {
        PreviewTemplate.failureRow.fill([
            "anchor": .attribute(anchor),
            "sourceAttr": .attribute(item.source),
            "source": .text(item.source),
            "encoding": .html(encodingNote(item.sourceEncoding)),
            "kind": .text(item.kind.rawValue),
            "code": .text(item.error?.code.rawValue ?? "unknown"),
            "message": .text(item.error?.message ?? "no error recorded"),
        ])
    }
}
