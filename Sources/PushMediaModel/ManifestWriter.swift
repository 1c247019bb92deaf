import Foundation

/// Writes a manifest item by item, in bounded memory: `manifest.json` (one JSON document, the
/// schema of ``Manifest``) and `manifest.ndjson` (one item a line, the same item schema), both
/// into hidden temporary files that ``finish()`` renames into place (atomic: a reader sees the
/// old manifest or the new one, never half of one).
///
/// Items are written in the order they are added, each on one line (compact, keys sorted, as in
/// the NDJSON form); the summary is counted as they go and written after them (JSON keys are sorted: `items` comes before `profile`, `schemaVersion` and
/// `summary`), so nothing holds all items at once.
///
/// ```swift
/// let writer = try ManifestWriter(directory: out, profile: profile)
/// for item in items { try writer.add(item) }
/// let summary = try writer.finish()
/// ```
public final class ManifestWriter {
    /// Names of the two forms inside the folder.
    public static let jsonName = "manifest.json"
    public static let ndjsonName = "manifest.ndjson"

    public let directory: URL
    /// ISO 8601 time written into the manifest (the preview shows the same).
    public let generatedAt: String
    public private(set) var summary = Manifest.Summary(items: [])
    private let json: Output
    private let ndjson: Output
    private let itemEncoder: JSONEncoder
    private let lineEncoder: JSONEncoder
    private let trailer: (profile: Profile, schemaVersion: Int)
    private var finished = false

    /// Starts both files in `directory` (created when missing).
    /// - Parameter jsonName: the JSON form's name (`manifest --out FILE` picks its own); the
    ///   NDJSON form is written next to it, named after it (`x.json` → `x.ndjson`), unless
    ///   `writesNDJSON` is false.
    public init(
        directory: URL, profile: Profile, generator: Manifest.Generator = .current, generatedAt: Date = Date(),
        jsonName: String = ManifestWriter.jsonName, writesNDJSON: Bool = true
    ) throws {
        self.directory = directory
        self.generatedAt = Manifest.timestamp(generatedAt)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        itemEncoder = JSONEncoder()
        itemEncoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        lineEncoder = JSONEncoder()
        lineEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        trailer = (profile, Manifest.currentSchemaVersion)
        json = try Output(directory: directory, name: jsonName)
        let ndjsonName = (jsonName as NSString).deletingPathExtension + ".ndjson"
        ndjson = writesNDJSON ? try Output(directory: directory, name: ndjsonName) : Output.none()
        let header =
            "{\n  \"generatedAt\" : \(try quoted(self.generatedAt)),\n"
            + "  \"generator\" : \(try indented(itemEncoder.encode(generator), by: 2)),\n  \"items\" : ["
        try json.write(header)
    }

    /// Appends one item to both forms.
    public func add(_ item: Item) throws {
        try add(encoded: lineEncoder.encode(item), status: item.status, attachmentBytes: item.attachments.reduce(0) { $0 + $1.bytes })
    }

    /// Appends one item already encoded as ``Item/jsonData()`` writes it (compact, keys sorted:
    /// a job's stored result), without decoding and encoding it again; `status` and
    /// `attachmentBytes` are what the summary counts of it.
    public func add(encoded: Data, status: Item.Status, attachmentBytes: Int) throws {
        precondition(!finished, "ManifestWriter.add after finish")
        // In the JSON form each item is one line of the `items` array, as in the NDJSON form.
        try json.write(summary.total == 0 ? "\n    " : ",\n    ")
        try json.write(encoded)
        try ndjson.write(encoded)
        try ndjson.write("\n")
        summary.total += 1
        if status == .ok { summary.ok += 1 } else { summary.failed += 1 }
        summary.outputBytes = summary.outputBytes.addingSaturated(attachmentBytes)
    }

    /// Writes the summary, flushes both files and renames them into place.
    /// - Returns: the summary of every item added.
    @discardableResult
    public func finish() throws -> Manifest.Summary {
        precondition(!finished, "ManifestWriter.finish twice")
        finished = true
        try json.write(
            "\n  ],\n"
                + "  \"profile\" : \(try indented(itemEncoder.encode(trailer.profile), by: 2)),\n"
                + "  \"schemaVersion\" : \(trailer.schemaVersion),\n"
                + "  \"summary\" : \(try indented(itemEncoder.encode(summary), by: 2))\n}")
        try ndjson.close()
        try json.close()
        // The NDJSON first: when the JSON form is in place, both are.
        try ndjson.commit()
        try json.commit()
        return summary
    }

    /// Removes the temporary files (a run that stopped before its end writes no manifest).
    public func discard() {
        guard !finished else { return }
        finished = true
        json.discard()
        ndjson.discard()
    }

    deinit { discard() }

    private func quoted(_ string: String) throws -> String {
        String(decoding: try lineEncoder.encode(string), as: UTF8.self)
    }

    /// Pretty JSON with every line after the first indented by `spaces` more.
    private func indented(_ data: Data, by spaces: Int) -> String {
        String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: spaces))
    }

    /// One file being written: a hidden temporary file, buffered, renamed at the end.
    private final class Output {
        /// An output that writes nothing (no NDJSON form).
        static func none() -> Output { Output() }
        let target: URL?
        let temporary: URL?
        private var handle: FileHandle?
        private var buffer = Data()

        private init() {
            target = nil
            temporary = nil
        }

        init(directory: URL, name: String) throws {
            let target = directory.appendingPathComponent(name)
            let temporary = directory.appendingPathComponent(TemporaryFileName.beside(name))
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            self.target = target
            self.temporary = temporary
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }

        func write(_ text: String) throws {
            try write(Data(text.utf8))
        }

        func write(_ data: Data) throws {
            guard handle != nil else { return }
            buffer.append(data)
            if buffer.count >= 1 << 20 { try flush() }
        }

        private func flush() throws {
            guard let handle, !buffer.isEmpty else { return }
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        func close() throws {
            guard let handle else { return }
            try flush()
            try handle.synchronize()
            try handle.close()
            self.handle = nil
        }

        func commit() throws {
            guard let temporary, let target else { return }
            guard rename(temporary.path, target.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }

        func discard() {
            try? handle?.close()
            handle = nil
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }
    }
}

extension Manifest.Summary {
    /// Counts one more item.
    public mutating func add(_ item: Item) {
        total += 1
        switch item.status {
        case .ok: ok += 1
        case .failed: failed += 1
        }
        outputBytes = outputBytes.addingSaturated(item.attachments.reduce(0) { $0.addingSaturated($1.bytes) })
    }
}

extension Manifest {
    /// Reads the items of an NDJSON manifest (`manifest.ndjson`) one line at a time, calling
    /// `body` with each until it returns false; memory holds one line, whatever the file's size.
    /// Lines are read as ``ManifestItemReader`` reads them (the one reader of NDJSON items):
    /// trailing spaces and a CR dropped, blank lines skipped, every value checked.
    /// - Throws: when the file cannot be read, or a line is not an item (with its line number).
    public static func forEachLine(ofNDJSON url: URL, _ body: (Item) throws -> Bool) throws {
        let reader = try ManifestItemReader(ndjsonAt: url)
        while let item = try reader.next() {
            guard try body(item) else { return }
        }
    }

    /// A line of an NDJSON manifest that is not an item.
    public struct NDJSONError: Error, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): not a manifest item: \(reason)" }
    }
}
