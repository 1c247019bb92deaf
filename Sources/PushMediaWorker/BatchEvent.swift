import Foundation
import PushMediaModel

/// What a batch run reports while it runs: one ``ItemEvent`` per input file as it finishes, then
/// one ``BatchSummary``. `pushmedia process --json` writes them as NDJSON, one object per line
/// (`docs/events.schema.json`); a Swift campaign tool reads them from ``QueuedBatch/events()``.
public enum BatchEvent: Sendable, Equatable {
    case item(ItemEvent)
    case summary(BatchSummary)

    /// The event as one line of JSON (no newline inside), as `process --json` prints it.
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data =
            switch self {
            case .item(let event): try encoder.encode(event)
            case .summary(let summary): try encoder.encode(summary)
            }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One input file finished (or found finished by an earlier run of the same output folder).
public struct ItemEvent: Codable, Sendable, Equatable {
    /// Always `item`.
    public var event = "item"
    /// The file's path relative to the input folder, as in the manifest: percent-escaped when
    /// it is not valid UTF-8, and ``sourceEncoding`` then says so.
    public var source: String
    /// As in the manifest: absent when ``source`` is the path itself, `percent` when escaped.
    public var sourceEncoding: SourceEncoding?
    public var status: Item.Status
    /// The error code of a failed item.
    public var code: ErrorCode?
    /// The error message of a failed item.
    public var message: String?
    public var kind: MediaKind
    /// The item's attachments: role, file name and size.
    public var attachments: [AttachmentSize]
    /// Bytes of all the item's attachments.
    public var bytes: Int
    /// Time spent on the item in this run, in milliseconds (0 when an earlier run finished it).
    public var ms: Int
    /// Which attempt finished the item (1 for the first).
    public var attempt: Int
    /// Items finished so far in this run, this one included.
    public var done: Int
    /// Items in the run.
    public var total: Int
    /// True when an earlier run had already finished the item (nothing was redone).
    public var resumed: Bool

    public struct AttachmentSize: Codable, Sendable, Equatable {
        public var role: Attachment.Role
        public var file: String
        public var bytes: Int
        public var width: Int?
        public var height: Int?
    }

    public init(item: Item, ms: Int, attempt: Int, done: Int, total: Int, resumed: Bool) {
        source = item.source
        sourceEncoding = item.sourceEncoding
        status = item.status
        code = item.error?.code
        message = item.error?.message
        kind = item.kind
        attachments = item.attachments.map { AttachmentSize(role: $0.role, file: $0.file, bytes: $0.bytes, width: $0.width, height: $0.height) }
        bytes = item.attachments.reduce(0) { $0 + $1.bytes }
        self.ms = ms
        self.attempt = attempt
        self.done = done
        self.total = total
        self.resumed = resumed
    }
}

/// The end of a batch run: where the manifest and preview are, and the manifest's counts.
public struct BatchSummary: Codable, Sendable, Equatable {
    /// Always `summary`.
    public var event = "summary"
    /// Path of `manifest.json`.
    public var manifest: String
    /// Path of `manifest.ndjson` (the same items, one a line).
    public var ndjson: String
    /// Path of `preview.html`.
    public var preview: String
    public var outputDirectory: String
    public var total: Int
    public var ok: Int
    public var failed: Int
    /// Bytes of all attachments of all items.
    public var outputBytes: Int
    /// Wall time of the whole run, in milliseconds.
    public var ms: Int
    /// Output files this run removed: files the campaign stored in the output folder that its
    /// manifest no longer names (never a file it did not store, never another campaign's).
    public var removedFiles: Int

    public init(
        manifest: String, ndjson: String, preview: String, outputDirectory: String, summary: Manifest.Summary, ms: Int,
        removedFiles: Int = 0
    ) {
        self.manifest = manifest
        self.ndjson = ndjson
        self.preview = preview
        self.outputDirectory = outputDirectory
        total = summary.total
        ok = summary.ok
        failed = summary.failed
        outputBytes = summary.outputBytes
        self.ms = ms
        self.removedFiles = removedFiles
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
