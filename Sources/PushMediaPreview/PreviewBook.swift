import Foundation
import PushMediaModel

/// Writes the preview of a campaign of any size as its items arrive, in bounded memory.
///
/// Items are added one at a time, in manifest order (sorted by source). The book holds up to
/// `pageSize` of them before it decides:
///
/// - **A small campaign** (at most `pageSize` items): ``finish()`` writes `preview.html`, the
///   very page ``PreviewRenderer/render(manifest:pageDirectory:manifestDirectory:)`` makes for
///   those items.
/// - **A larger one**: every item goes on a page in `preview/` as it arrives (its card on
///   `items-0001.html`…, a failure's row on `failed-0001.html`…, items with warnings listed
///   again on `warned-0001.html`…), at most `pageSize` a page and never past ``maxPageBytes``.
///   ``finish()`` then writes `preview.html` as a summary: the counts, the first failures, the
///   attachments largest against their budget, the slowest downloads, a sample of cards, and
///   links to every page. The summary's tables are bounded (the best K of a heap, a sample of
///   fixed size), so memory does not grow with the number of items.
///
/// Anchors are `item-N`, N the item's position in the manifest (1-based), on whichever page
/// holds the item; the summary links to `preview/items-0003.html#item-417`.
///
/// Not thread-safe: add items from one task at a time (they must arrive in order anyway).
///
/// ```swift
/// let book = PreviewBook(
///     renderer: PreviewRenderer(title: "Spring sale"), directory: outputFolder, attachmentsPrefix: "",
///     generator: .current, generatedAt: manifest.generatedAt, profile: profile)
/// for item in items { try book.add(item) }
/// let written = try book.finish()  // ["preview/items-0001.html", …, "preview.html"]
/// ```
public final class PreviewBook {
    /// Items a page holds. A card is about 5 KB of HTML, so a page of 200 is about 1 MB.
    public static let defaultPageSize = 200
    /// No page is larger than this (2 MB): pages are closed early when they would pass
    /// ``pageFillBytes``, and a card too large alone is shortened or replaced by a note.
    public static let maxPageBytes = 2_000_000
    /// A page is closed before its cards or rows pass this (1.5 MB).
    static let pageFillBytes = 1_500_000
    /// The most one card or row may take (256 KB); larger ones are shortened (``Clip``).
    static let maxFragmentBytes = 256 * 1024
    /// The name of the page (the summary, or the only page) in ``directory``.
    public static let summaryName = "preview.html"
    /// The folder, in ``directory``, that holds the pages of a paged preview.
    public static let folderName = "preview"

    /// The folder that receives `preview.html` and `preview/`.
    public let directory: URL
    /// The relative path from ``directory`` to the folder of the attachment files: `""` when
    /// it is the same, else ending in `/`.
    public let attachmentsPrefix: String
    /// Items a page holds (and the most items a small campaign has).
    public let pageSize: Int

    let chrome: BookChrome
    private var pending: [Item] = []
    private var stream: BookStream?
    private var count = 0
    private var finished = false
    /// The most items held at once (the buffer before the decision, and the sample): at most
    /// `pageSize`, whatever the number of items.
    private(set) var maxItemsHeld = 0
    /// The most cards or rows a series of pages held at once: at most `pageSize`.
    var maxFragmentsHeld: Int { stream?.series.map(\.maxFragmentsHeld).max() ?? 0 }

    /// A book that writes into `directory`.
    ///
    /// - Parameters:
    ///   - renderer: the texts and budgets of the cards.
    ///   - directory: the folder that receives `preview.html` and `preview/` (created if needed).
    ///   - attachmentsPrefix: the relative path from `directory` to the folder holding the
    ///     attachment files, `""` when it is the same (e.g. `RelativePath.from(directory, to:
    ///     outputFolder)`). Attachment `file`s may contain `/` (shard folders); URLs are encoded
    ///     one path segment at a time, and pages in `preview/` put `../` in front.
    ///   - generator, generatedAt, profile: what the manifest says about the run (the profile's
    ///     delivery link and target drive the download estimates).
    ///   - pageSize: items a page holds, at least 1.
    public init(
        renderer: PreviewRenderer, directory: URL, attachmentsPrefix: String,
        generator: Manifest.Generator, generatedAt: String, profile: Profile,
        pageSize: Int = PreviewBook.defaultPageSize
    ) {
        self.directory = directory
        self.attachmentsPrefix = attachmentsPrefix.isEmpty || attachmentsPrefix.hasSuffix("/") ? attachmentsPrefix : attachmentsPrefix + "/"
        self.pageSize = max(1, pageSize)
        chrome = BookChrome(
            renderer: renderer, generator: generator, generatedAt: generatedAt, profile: profile,
            target: DeliveryTarget(profile.delivery, bitsPerSecond: renderer.bitsPerSecond))
    }

    /// Adds the next item (manifest order). Writes a page when one is full.
    public func add(_ item: Item) throws {
        guard !finished else { throw PreviewBookError.finished }
        let index = count
        count += 1
        if let stream {
            try stream.add(item, index: index)
        } else if pending.count < pageSize {
            pending.append(item)
        } else {
            try startPaging().add(item, index: index)
        }
        maxItemsHeld = max(maxItemsHeld, pending.count + (stream?.sampleHeld ?? 0))
    }

    /// Finishes the book: writes the remaining pages, then `preview.html` (last, atomically:
    /// temporary file + rename), and removes pages of an earlier, larger run from `preview/`
    /// (and the folder, when a small campaign leaves it empty).
    ///
    /// - Returns: the paths written, relative to ``directory``, `preview.html` last.
    public func finish() throws -> [String] {
        guard !finished else { throw PreviewBookError.finished }
        finished = true
        let summaryURL = directory.appendingPathComponent(Self.summaryName)
        let pagesFolder = directory.appendingPathComponent(Self.folderName)
        if stream == nil {
            let html = chrome.renderer.singlePage(
                items: pending, generator: chrome.generator, generatedAt: chrome.generatedAt,
                profile: chrome.profile, prefix: attachmentsPrefix)
            // A page of long names or many warnings may be too large: then it is paged too.
            if html.utf8.count <= Self.maxPageBytes {
                pending.removeAll()
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try AtomicFile.write(Data(html.utf8), to: summaryURL, sync: true)
                try PageSeries.removeStale(in: pagesFolder, keeping: [:])
                if (try? FileManager.default.contentsOfDirectory(atPath: pagesFolder.path))?.isEmpty == true {
                    try FileManager.default.removeItem(at: pagesFolder)
                }
                return [Self.summaryName]
            }
            _ = try startPaging()
        }
        guard let stream else { return [] }
        try stream.close()
        try PageSeries.removeStale(in: pagesFolder, keeping: stream.pageCounts)
        var html = stream.summaryPage(compact: false)
        if html.utf8.count > Self.maxPageBytes { html = stream.summaryPage(compact: true) }
        try AtomicFile.write(Data(html.utf8), to: summaryURL, sync: true)
        return stream.series.flatMap(\.paths) + [Self.summaryName]
    }

    /// Switches to pages: everything held so far goes on them.
    private func startPaging() throws -> BookStream {
        let folder = directory.appendingPathComponent(Self.folderName)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stream = BookStream(
            chrome: chrome, folder: folder, attachmentsPrefix: attachmentsPrefix, pageSize: pageSize,
            sampleCapacity: min(2 * BookStream.sampleCount, pageSize))
        self.stream = stream
        for (index, item) in pending.enumerated() { try stream.add(item, index: index) }
        pending.removeAll()
        return stream
    }
}

/// Why a ``PreviewBook`` refused.
public enum PreviewBookError: Error, Equatable {
    /// ``PreviewBook/add(_:)`` or ``PreviewBook/finish()`` after `finish()`.
    case finished
    /// A page's count field was not where the book wrote it (the file was changed meanwhile).
    case pageChanged(String)
}
