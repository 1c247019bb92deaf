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
        print("preview: \(pageURL.path) (\(manifest.summary.ok) ok, \(manifest.summary.failed) failed)")
    }

}
