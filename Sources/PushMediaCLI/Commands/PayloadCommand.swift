import ArgumentParser
import Foundation
import PushMediaModel
import PushPayload

/// `pushmedia payload`: prints the push payload for one manifest item, or (`--all`) one NDJSON
/// line for every item. All logic is in PushPayload; this only reads the manifest and prints.
struct PayloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payload",
        abstract: "Print the push payload that sends one manifest item's attachments (or every item's, --all).",
        usage: """
            pushmedia payload --manifest <file> (--item <source> | --all)
                     --format <format> [--title <t>] [--body <b>] [--mode <mode>]
                     [--platforms <list>] [--base-url <url>]
                     [--animated-android-image] [--pretty]
            """,
        discussion: """
            Formats: apns (PushMedia's own `pm` list, iOS only), braze (/messages/send: \
            apple_push asset, android_push appboy_image_url, web_push), adobe (FCM message: \
            adb_media, adb_image), airship (media_attachment, big_picture style, web), onesignal \
            (ios_attachments, big_picture, Huawei, Amazon and web images), fcm (HTTP v1 message, \
            android.notification.image, webpush.notification). --platforms picks the devices \
            (ios, android, web, huawei, amazon; default ios,android where the format reaches \
            them); one the format cannot reach is a usage error (exit 2). The payload is checked \
            against the sender's size limits; see docs/payload.md.
            """)

    @Option(name: .long, help: "The manifest written by `pushmedia`.")
    var manifest: String

    @Option(name: .long, help: "The item's source, as in the manifest.")
    var item: String?

    @Flag(name: .long, help: "Every item, one NDJSON line each, in manifest order: {\"source\",\"payload\"} or {\"source\",\"error\"}.")
    var all = false

    @Option(name: .long, help: "apns, braze, adobe, airship, onesignal or fcm.")
    var format: PayloadFormat

    @Option(name: .long, help: "Notification title.")
    var title: String?

    @Option(name: .long, help: "Notification body.")
    var body: String?

    @Option(
        name: .long,
        help:
            "multi: expanded (thumbnail hidden) + square thumbnail; single: expanded with its clipping rect. Default: single for airship and onesignal, else multi."
    )
    var mode: PayloadMode?

    @Option(name: .long, help: "Comma-separated: ios, android, web, huawei, amazon (default: ios,android where the format reaches them).")
    var platforms: String?

    @Option(name: .long, help: "https base URL the output folder is served from; overrides URLs in the manifest.")
    var baseURL: String?

    @Flag(name: .long, help: "adobe only: an animated GIF item's GIF as adb_image (animated by Adobe's SDK on Android 14+).")
    var animatedAndroidImage = false

    @Flag(name: .long, help: "Indent the JSON (the size limit always counts the compact form; not with --all).")
    var pretty = false

    func validate() throws {
        if let baseURL { try Setting.checkBaseURL(baseURL, named: "--base-url") }
        guard (item != nil) != all else { throw ValidationError("give --item <source> or --all, not both") }
        if all && pretty { throw ValidationError("--pretty indents one payload: --all prints one line per item") }
    }

    func run() throws {
        let builder = try makeBuilder()
        if all { return try printAll(builder) }
        let item = try Self.lookUp(item ?? "", in: manifest)
        do {
            let payload = try builder.build(item, format: format)
            for warning in payload.warnings { printError("warning: \(warning)") }
            printError(payload.sizeSummary)
            print(pretty ? payload.prettyString : payload.compactString)
        } catch {
            printError("error: \(TerminalText.escaped(error.description))")
            throw ExitCode(1)
        }
    }

    /// The builder the options ask for; what no item can fix (no text, a platform or option the
    /// format cannot take) is refused here, before any item is read. Platform and option
    /// mistakes are usage errors (exit 2).
    func makeBuilder() throws -> PayloadBuilder {
        var chosen: [PayloadPlatform]?
        if let platforms {
            switch PayloadPlatform.list(platforms) {
            case .failure(let unknown):
                printError(
                    "error: --platforms: \"\(TerminalText.escaped(unknown.name))\" is not a platform; give some of "
                        + PayloadPlatform.allCases.map(\.rawValue).joined(separator: ", "))
                throw ExitCode(2)
            case .success(let list):
                chosen = list
            }
        }
        let builder = PayloadBuilder(
            title: title, body: body, mode: mode ?? format.defaultMode, baseURL: baseURL, platforms: chosen,
            animatedAndroidImage: animatedAndroidImage)
        do {
            _ = try builder.platforms(for: format)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        if animatedAndroidImage && format != .adobe {
            printError("error: \(PayloadError.optionNotForFormat(option: "--animated-android-image", format: format, only: .adobe))")
            throw ExitCode(2)
        }
        if title.flatMap({ $0.isEmpty ? nil : $0 }) == nil && body.flatMap({ $0.isEmpty ? nil : $0 }) == nil {
            printError("error: \(PayloadError.missingAlertText)")
            throw ExitCode(1)
        }
        return builder
    }

    /// `--all`: one line per item in manifest order, streamed: an NDJSON manifest is read line
    /// by line (constant memory); a JSON manifest without one is parsed whole. Exit 1 when any
    /// item's line is an error (every line is still printed).
    func printAll(_ builder: PayloadBuilder) throws {
        var items = 0
        var errors = 0
        let out = LineWriter()
        func emit(_ item: Item) {
            items += 1
            let line = PayloadLine(item, builder: builder, format: format)
            if line.isError { errors += 1 }
            for warning in line.warnings { printError("warning: \(TerminalText.escaped(item.source)): \(warning)") }
            out.write(line.text)
        }
        if let lines = Self.ndjson(beside: manifest) {
            do {
                try Manifest.forEachLine(ofNDJSON: lines) { item in
                    emit(item)
                    return true
                }
            } catch {
                out.flush()
                printError("error: cannot read manifest \(lines.path): \(error)")
                throw ExitCode(1)
            }
        } else {
            for item in try readManifest(manifest).items { emit(item) }
        }
        out.flush()
        printError("\(format.rawValue): \(items) items, \(items - errors) payloads, \(errors) errors")
        if errors > 0 { throw ExitCode(1) }
    }
}

/// One `--all` line: `{"source":…,"payload":{…}}` with exactly the body `--item` prints, or
/// `{"source":…,"error":{"code":…,"message":…}}`.
struct PayloadLine {
    var text: String
    var warnings: [String]
    var isError: Bool

    init(_ item: Item, builder: PayloadBuilder, format: PayloadFormat) {
        let source = PayloadJSON.string(item.source).compactString
        do {
            let payload = try builder.build(item, format: format)
            text = "{\"source\":\(source),\"payload\":\(payload.compactString)}"
            warnings = payload.warnings
            isError = false
        } catch {
            let detail = PayloadJSON.object(["code": .string(error.code), "message": .string(error.description)])
            text = "{\"source\":\(source),\"error\":\(detail.compactString)}"
            warnings = []
            isError = true
        }
    }
}

/// Standard output in large writes: `--all` prints one line per item, up to millions.
final class LineWriter {
    private var buffer = Data()

    func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

extension PayloadCommand {
    /// The item with source `source`. An NDJSON manifest (`manifest.ndjson`, or the one written
    /// next to `manifest.json`) is read line by line up to the item, never whole; a JSON manifest
    /// without one is parsed whole.
    static func lookUp(_ source: String, in path: String) throws -> Item {
        guard let lines = ndjson(beside: path) else {
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

    /// The NDJSON form of the manifest at `path`: the file itself when it is one, else the one
    /// written next to it, when it exists and is as new as the JSON form.
    static func ndjson(beside path: String) -> URL? {
        let url = URL(fileURLWithPath: path)
        let lines = url.pathExtension == "ndjson" ? url : url.deletingPathExtension().appendingPathExtension("ndjson")
        guard FileManager.default.fileExists(atPath: lines.path), url == lines || isAsNew(lines, as: url) else { return nil }
        return lines
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
