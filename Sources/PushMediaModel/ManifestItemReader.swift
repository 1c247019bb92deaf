import Foundation

/// A file's lines, one at a time, in bounded memory: it reads 1 MiB at a time and holds at
/// most one chunk and the line being read. Time is linear in the file's size, however long a
/// line is: each byte is searched for a newline once, and bytes are moved only when a line is
/// returned or a chunk comes in after the last newline.
public final class FileLineReader {
    private let handle: FileHandle
    private var pending = Data()
    private var start = 0
    /// Where the search for the next newline goes on: the bytes from ``start`` to here have none.
    private var searched = 0
    private var atEnd = false
    /// The number of the line last returned, from 1.
    public private(set) var lineNumber = 0

    public init(url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
    }

    deinit { try? handle.close() }

    /// The next line without its `\n`; nil past the last one (a last line without a newline is
    /// returned too, an empty one is not).
    public func next() throws -> Data? {
        while true {
            // `pending` is always a Data of its own, indexed from 0; `start` is where the next line begins.
            if let newline = Self.newline(in: pending, from: searched) {
                let line = Data(pending[start..<newline])
                start = newline + 1
                searched = start
                lineNumber += 1
                return line
            }
            searched = pending.count
            if atEnd {
                guard start < pending.count else { return nil }
                let line = Data(pending[start...])
                start = pending.count
                searched = start
                lineNumber += 1
                return line
            }
            // The bytes already returned are dropped before the next chunk comes in; a line longer
            // than a chunk grows in place (Data doubles its storage), never copied per chunk.
            if start > 0 {
                pending.removeSubrange(0..<start)
                searched -= start
                start = 0
            }
            if let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                pending.append(chunk)
            } else {
                atEnd = true
            }
        }
    }

    /// The index of the first `\n` in `data` at or after `start` (memchr: a byte at a time
    /// through Data's indices is ten times slower on a long line).
    private static func newline(in data: Data, from start: Int) -> Int? {
        guard start < data.count else { return nil }
        return data.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base + start, Int32(UInt8(ascii: "\n")), raw.count - start) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}

/// The items of a manifest, one at a time: an NDJSON manifest (`manifest.ndjson`) a line at a
/// time, and `manifest.json` as ``ManifestWriter`` writes it (one item a line inside `items`)
/// too, so memory holds one item whatever the manifest's size. A JSON manifest laid out
/// otherwise (``Manifest/jsonData()``'s pretty form) is decoded whole.
public final class ManifestItemReader {
    private enum Source {
        case lines(FileLineReader, json: Bool)
        case whole(IndexingIterator<[Item]>)
    }
    private var source: Source
    private var finished = false
    private let decoder = JSONDecoder()

    /// Opens `url` as an NDJSON manifest, an item a line, whatever its extension.
    public init(ndjsonAt url: URL) throws {
        source = .lines(try FileLineReader(url: url), json: false)
    }

    /// Opens `url`: NDJSON when its extension is `ndjson`, else JSON.
    public init(url: URL) throws {
        let lines = try FileLineReader(url: url)
        guard url.pathExtension.lowercased() != "ndjson" else {
            source = .lines(lines, json: false)
            return
        }
        // Up to the `items` array; its first line says whether each item is on a line of its own.
        while let line = try lines.next() {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if text == "\"items\" : [" || text == "\"items\": [" {
                source = .lines(lines, json: true)
                if try Self.isOneItemALine(url, after: lines.lineNumber) { return }
                break
            }
        }
        // Through a file handle: Foundation's Data(contentsOf:) leaks its buffer on an empty file.
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let manifest = try Manifest.decode(from: try handle.readToEnd() ?? Data())
        source = .whole(manifest.items.makeIterator())
    }

    /// The next item; nil after the last.
    /// - Throws: ``Manifest/NDJSONError`` (with the line number) for a line that is not an item.
    public func next() throws -> Item? {
        guard !finished else { return nil }
        switch source {
        case .whole(var items):
            let item = items.next()
            source = .whole(items)
            if item == nil { finished = true }
            return item
        case .lines(let lines, let json):
            while let line = try lines.next() {
                var bytes = line[...]
                while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
                guard !bytes.isEmpty else { continue }
                if json {
                    // The first byte that is not a space says whether the array ended (no String
                    // of the whole line: an item's line may be megabytes long).
                    if bytes.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "]") {
                        finished = true
                        return nil
                    }
                    if bytes.last == UInt8(ascii: ",") { bytes = bytes.dropLast() }
                }
                let item: Item
                do {
                    item = try decoder.decode(Item.self, from: Data(bytes))
                } catch let error as DecodingError {
                    throw Manifest.NDJSONError(line: lines.lineNumber, reason: error.readableDescription(decoding: Data(bytes)))
                } catch {
                    throw Manifest.NDJSONError(line: lines.lineNumber, reason: "not valid JSON (\(error))")
                }
                if let problem = item.valueProblem() { throw Manifest.NDJSONError(line: lines.lineNumber, reason: "\(problem)") }
                return item
            }
            finished = true
            return nil
        }
    }

    /// Whether the first non-empty line after line `number` of the JSON manifest at `url` is a
    /// whole item (`{…}`) or the end of the array, rather than an item's opening brace alone.
    private static func isOneItemALine(_ url: URL, after number: Int) throws -> Bool {
        let lines = try FileLineReader(url: url)
        while let line = try lines.next() {
            guard lines.lineNumber > number else { continue }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            return text.hasPrefix("]") || (text.hasPrefix("{") && (text.hasSuffix("}") || text.hasSuffix("},")))
        }
        return false
    }
}
