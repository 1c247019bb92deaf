import Foundation

/// The result of one PushMedia run: every input file as an ``Item``, with its attachments.
///
/// Documented in `docs/manifest.md`; `docs/manifest.schema.json` is its JSON Schema.
public struct Manifest: Codable, Sendable, Equatable {
    /// The version of this shape. Bumped on any incompatible change.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var generator: Generator
    /// ISO 8601 time the manifest was written.
    public var generatedAt: String
    /// The effective profile (defaults merged with the `--profile` file).
    public var profile: Profile
    public var summary: Summary
    /// One item per input file, sorted by ``Item/source``.
    public var items: [Item]

    public init(
        generator: Generator = .current,
        generatedAt: Date = Date(),
        profile: Profile,
        items: [Item]
    ) {
        self.schemaVersion = Self.currentSchemaVersion
        self.generator = generator
        self.generatedAt = Manifest.timestamp(generatedAt)
        self.profile = profile
        // (A UTF-8 name and an escaped one may read the same: the UTF-8 one first.)
        let sorted = items.sorted { ($0.source, $0.sourceEncoding != nil ? 1 : 0) < ($1.source, $1.sourceEncoding != nil ? 1 : 0) }
        self.items = sorted
        self.summary = Summary(items: sorted)
    }

    /// The item for a source path, if any.
    public func item(source: String) -> Item? {
        items.first { $0.source == source }
    }

    /// `date` as the manifest writes times: ISO 8601, UTC, whole seconds.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension Manifest {
    /// Which program wrote the manifest.
    public struct Generator: Codable, Sendable, Equatable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }

        public static let current = Generator(name: "pushmedia", version: PushMediaVersion.string)
    }

    /// Counts over the items.
    public struct Summary: Codable, Sendable, Equatable {
        public var total: Int
        public var ok: Int
        public var failed: Int
        /// Bytes of all attachments of all items (what a campaign has to host).
        public var outputBytes: Int

        public init(items: [Item]) {
            total = items.count
            ok = items.filter { $0.status == .ok }.count
            failed = items.filter { $0.status == .failed }.count
            outputBytes = items.reduce(0) { $0.addingSaturated($1.attachments.reduce(0) { $0.addingSaturated($1.bytes) }) }
        }
    }
}

extension Manifest {
    /// The manifest as JSON: pretty, keys sorted, slashes unescaped.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a manifest written by ``jsonData()``.
    /// - Throws: `DecodingError` for JSON that is not a manifest, ``ManifestDecodingError`` for
    ///   an item with a number out of its range (``Item/valueProblem()``).
    public static func decode(from data: Data) throws -> Manifest {
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        for (index, item) in manifest.items.enumerated() {
            if let problem = item.valueProblem() { throw ManifestDecodingError(place: "items[\(index)]", reason: "\(problem)") }
        }
        return manifest
    }
}

/// The version of PushMedia, written into manifests and shown by `pushmedia --version`.
public enum PushMediaVersion {
    public static let string = "0.1.0"
}

/// Why a manifest, or an item of it, cannot be read: where, and what is wrong, in words.
public struct ManifestDecodingError: Error, Sendable, CustomStringConvertible {
    /// `line 3` of an NDJSON manifest, `items[2]` of a JSON one.
    public var place: String
    public var reason: String
    public var description: String { "\(place): not a manifest item: \(reason)" }
}

extension DecodingError {
    /// The error as a person reads it, for the JSON `data` it was thrown for: as
    /// ``readableDescription``, except that where the decoder lost the field (Foundation's
    /// decoder reports a number that does not fit its field, `1.5` for a byte count, as JSON
    /// that is not valid, with no path), the field is found in `data` and named.
    public func readableDescription(decoding data: Data) -> String {
        if case .dataCorrupted(let context) = self, context.codingPath.isEmpty,
            let found = ManifestJSON.misfitNumber(in: data)
        {
            return found
        }
        return readableDescription
    }

    /// The error as a person reads it: the field's path (`attachments[1].bytes`) and what the
    /// decoder found there, not the Swift description of its context.
    public var readableDescription: String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the item" : text
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.name(of: type)) (\(context.debugDescription))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.name(of: type)), found null or nothing"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            let text = context.debugDescription
            if text.contains("does not fit in Int") { return "\(path(context.codingPath)): expected a whole number (\(text))" }
            return "\(path(context.codingPath)): \(text)"
        @unknown default:
            return "\(self)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: "a whole number"
        case is Double.Type, is Float.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}

/// Finds what Foundation's decoder does not say: which field of a manifest's JSON holds a number
/// that does not fit it.
enum ManifestJSON {
    /// The fields of an item (and of a manifest's summary) that hold whole numbers.
    static let wholeNumberKeys: Set<String> = [
        "bytes", "sourceBytes", "width", "height", "frames", "budget", "linkBitsPerSecond", "quality", "colours", "attempts",
        "framesKept", "framesTotal", "videoBitRate", "audioBitRate", "orientation", "bands", "bitDepth", "total", "ok", "failed",
        "outputBytes",
    ]

    /// `path: expected a whole number, got 1.5` for the first whole-number field of `data` (valid
    /// JSON) holding a fraction or a number past `Int`'s range; nil when `data` is not JSON or
    /// has none.
    static func misfitNumber(in data: Data) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return search(root, path: "")
    }

    private static func search(_ value: Any, path: String) -> String? {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                let here = path.isEmpty ? key : path + "." + key
                if wholeNumberKeys.contains(key), let number = object[key] as? NSNumber, !(object[key] is Bool) {
                    let double = number.doubleValue
                    if double.rounded() != double || abs(double) >= 9.2e18 {
                        return "\(here): expected a whole number, got \(number)"
                    }
                }
                if let found = search(object[key]!, path: here) { return found }
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                if let found = search(element, path: path + "[\(index)]") { return found }
            }
        }
        return nil
    }
}
