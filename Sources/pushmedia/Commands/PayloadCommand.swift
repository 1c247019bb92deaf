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
            Formats: apns (PushMedia's own `pm` list), braze (ab.att), adobe (adb_media), \
            airship (media_attachment), onesignal (ios_attachments), fcm (HTTP v1 message). \
            The payload is checked against the sender's size limit; see docs/payload.md.
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


    func run() throws {
        let manifest = try readManifest(self.manifest)
        do {
            let item = try PayloadBuilder.item(source: item, in: manifest)
            let builder = PayloadBuilder(title: title, body: body, mode: mode, baseURL: baseURL)
            let payload = try builder.build(item, format: format)
            for warning in payload.warnings { printError("warning: \(warning)") }
            printError("\(format.rawValue) payload: \(payload.byteCount) of \(payload.byteLimit) bytes")
            print(pretty ? payload.prettyString : payload.compactString)
        } catch {
            printError("error: \(error.description)")
            throw ExitCode(1)
        }
    }
}

extension PayloadFormat: ExpressibleByArgument {}
extension PayloadMode: ExpressibleByArgument {}
