import ArgumentParser
import Foundation
import PushMediaModel
import PushPayload

/// `pushmedia payload`: prints the push payload for one manifest item. All logic is in
/// PushPayload; this only reads the manifest and prints.
struct PayloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payload",
        abstract: "Print the push payload that sends one manifest item's attachments.",
        usage: """
            pushmedia payload --manifest <file> --item <source> --format <format>
                     [--title <t>] [--body <b>] [--mode <mode>] [--base-url <url>]
            """,
        discussion: """
            Formats: apns (PushMedia's own `pm` list, iOS only), braze (/messages/send: \
            apple_push asset, android_push appboy_image_url), adobe (FCM message: adb_media, \
            adb_image), airship (media_attachment, big_picture style), onesignal \
            (ios_attachments, big_picture), fcm (HTTP v1 message, android.notification.image). \
            Every format but apns carries the item's Android image. The payload is checked \
            against the sender's size limit; see docs/payload.md.
            """)

    @Option(name: .long, help: "The manifest written by `pushmedia`.")
    var manifest: String

    @Option(name: .long, help: "The item's source, as in the manifest.")
    var item: String

    @Option(name: .long, help: "apns, braze, adobe, airship, onesignal or fcm.")
    var format: PayloadFormat

    @Option(name: .long, help: "Notification title.")
    var title: String?

    @Option(name: .long, help: "Notification body.")
    var body: String?

    @Option(name: .long, help: "multi: expanded (thumbnail hidden) + square thumbnail; single: expanded with its clipping rect.")
    var mode: PayloadMode = .multi

    @Option(name: .long, help: "https base URL the output folder is served from; overrides URLs in the manifest.")
    var baseURL: String?

    @Flag(name: .long, help: "Indent the JSON (the size limit always counts the compact form).")
    var pretty = false

    func validate() throws {
        if let baseURL { try Setting.checkBaseURL(baseURL, named: "--base-url") }
    }

    func run() throws {
        let item = try Self.lookUp(item, in: manifest)
        do {
            let builder = PayloadBuilder(title: title, body: body, mode: mode, baseURL: baseURL)
            let payload = try builder.build(item, format: format)
            for warning in payload.warnings { printError("warning: \(warning)") }
            printError("\(format.rawValue) payload: \(payload.byteCount) of \(payload.byteLimit) bytes")
            print(pretty ? payload.prettyString : payload.compactString)
        } catch {
            printError("error: \(TerminalText.escaped(error.description))")
            throw ExitCode(1)
        }
    }
}

extension PayloadCommand {
    /// The item with source `source`. An NDJSON manifest (`manifest.ndjson`, or the one written
    /// next to `manifest.json`) is read line by line up to the item, never whole; a JSON manifest
    /// without one is parsed whole.
    static func lookUp(_ source: String, in path: String) throws -> Item {
        let url = URL(fileURLWithPath: path)
        let lines = url.pathExtension == "ndjson" ? url : url.deletingPathExtension().appendingPathExtension("ndjson")
        guard FileManager.default.fileExists(atPath: lines.path), url == lines || isAsNew(lines, as: url) else {
            let manifest = try readManifest(path)
            do {
                return try PayloadBuilder.item(source: source, in: manifest)
            } catch {
                printError("error: \(TerminalText.escaped(error.description))")
                throw ExitCode(1)
            }
        }
        var found: Item?
        var known: [String] = []
        var count = 0
        do {
            try Manifest.forEachLine(ofNDJSON: lines) { item in
                if item.source == source {
                    found = item
                    return false
                }
                if known.count < 10 { known.append(item.source) }
                count += 1
                return true
            }
        } catch {
            printError("error: cannot read manifest \(lines.path): \(error)")
            throw ExitCode(1)
        }
        guard let found else {
            // The message names ten sources and the count, as for a JSON manifest.
            let error = PayloadError.itemNotFound(source: source, known: known + Array(repeating: "", count: max(0, count - known.count)))
            printError("error: \(TerminalText.escaped(error.description))")
            throw ExitCode(1)
        }
        return found
    }

    /// Whether `lines` was written with or after `json` (both come from one run; an older NDJSON
    /// file beside a newer JSON one is not trusted).
    private static func isAsNew(_ lines: URL, as json: URL) -> Bool {
        let attributes = { (url: URL) in (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date }
        guard let linesDate = attributes(lines) else { return false }
        guard let jsonDate = attributes(json) else { return true }
        return linesDate.addingTimeInterval(1) >= jsonDate
    }
}

extension PayloadFormat: ExpressibleByArgument {}
extension PayloadMode: ExpressibleByArgument {}
