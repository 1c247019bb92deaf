import ArgumentParser
import Foundation
import PushMedia
import PushMediaModel
import PushMediaPreview

/// `pushmedia preview`: writes the HTML preview page of a manifest. All rendering is in
/// PushMediaPreview; this reads the manifest, writes the page atomically and says where it went.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write an HTML page that shows every notification of a manifest.",
        usage: """
            pushmedia preview --manifest <file> --out <file>
                     [--title <t>] [--body <b>]
            """,
        discussion: """
            The page shows each item collapsed and expanded as iOS draws it, its sizes against \
            Apple's limits, warnings, failures and the download time on a 1 Mbps link. Images \
            are referenced relative to the page, so keep the page and the output folder where \
            they are. See docs/preview.md.
            """)

    @Option(name: .long, help: ArgumentHelp("The manifest written by `pushmedia process`.", valueName: "file"))
    var manifest: String

    @Option(name: .long, help: ArgumentHelp("Where to write the page, e.g. out/preview.html.", valueName: "file"))
    var out: String

    @Option(name: .long, help: "Notification title shown in the cards.")
    var title: String?

    @Option(name: .long, help: "Notification body shown in the cards.")
    var body: String?

    func validate() throws {
        if manifest.isEmpty { throw ValidationError("--manifest must name a file") }
        if out.isEmpty || out.hasSuffix("/") { throw ValidationError("--out must name a file, e.g. preview.html") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ValidationError("--out \(out) is a folder; name the page file, e.g. \(out)/preview.html")
        }
        let manifestURL = URL(fileURLWithPath: manifest).standardizedFileURL
        if manifestURL == URL(fileURLWithPath: out).standardizedFileURL {
            throw ValidationError("--out must not be the manifest itself")
        }
    }

    func run() throws {
        let manifestURL = URL(fileURLWithPath: self.manifest).standardizedFileURL
        let pageURL = URL(fileURLWithPath: out).standardizedFileURL
        // A manifest with its NDJSON form streams into a book (pages past 200 items) when the
        // page is `preview.html`, the name the pages link back to; else the whole manifest is read.
        let lines = manifestURL.pathExtension == "ndjson" ? manifestURL : manifestURL.deletingPathExtension().appendingPathExtension("ndjson")
        if pageURL.lastPathComponent == PreviewBook.summaryName, FileManager.default.fileExists(atPath: lines.path) {
            try writeBook(from: lines, manifestDirectory: manifestURL.deletingLastPathComponent(), pageURL: pageURL)
            return
        }
        let manifest = try readManifest(self.manifest)
        let html = PreviewRenderer.render(
            manifest: manifest,
            pageDirectory: pageURL.deletingLastPathComponent(),
            manifestDirectory: manifestURL.deletingLastPathComponent(),
            title: title, body: body)
        do {
            try OutputStore.writeAtomically(Data(html.utf8), to: pageURL)
        } catch {
            printError("error: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        // The page counts the items; a summary edited by hand (or left from other items) is
        // not believed, and is said to disagree.
        let counted = Manifest.Summary(items: manifest.items)
        if counted != manifest.summary {
            printError(
                "warning: the manifest's summary (\(manifest.summary.total) items: \(manifest.summary.ok) ok, \(manifest.summary.failed) failed) "
                    + "does not match its items (\(counted.total): \(counted.ok) ok, \(counted.failed) failed); the preview shows the items")
        }
        print("preview: \(pageURL.path) (\(counted.ok) ok, \(counted.failed) failed)")
    }

    /// The preview of an NDJSON manifest, read a line at a time: memory holds a page.
    private func writeBook(from lines: URL, manifestDirectory: URL, pageURL: URL) throws {
        let folder = pageURL.deletingLastPathComponent()
        let prefix = RelativePath.from(folder, to: manifestDirectory)
        let attributes = try? FileManager.default.attributesOfItem(atPath: lines.path)
        let written = Manifest.timestamp((attributes?[.modificationDate] as? Date) ?? Date())
        // The profile is in the JSON form's header only: read up to its items would need a
        // streaming parser, so the book shows the built-in profile's delivery link.
        let book = PreviewBook(
            renderer: PreviewRenderer(title: title ?? PreviewRenderer.defaultTitle, body: body ?? PreviewRenderer.defaultBody),
            directory: folder, attachmentsPrefix: prefix, generator: .current, generatedAt: written, profile: .default)
        var summary = Manifest.Summary(items: [])
        do {
            try Manifest.forEachLine(ofNDJSON: lines) { item in
                try book.add(item)
                summary.add(item)
                return true
            }
            _ = try book.finish()
        } catch {
            printError("error: cannot write the preview of \(lines.path) into \(folder.path): \(error)")
            throw ExitCode(1)
        }
        print("preview: \(pageURL.path) (\(summary.ok) ok, \(summary.failed) failed)")
    }

}
