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
            outputBytes = items.reduce(0) { $0 + $1.attachments.reduce(0) { $0 + $1.bytes } }
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
    public static func decode(from data: Data) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: data)
    }
}

/// The version of PushMedia, written into manifests and shown by `pushmedia --version`.
public enum PushMediaVersion {
    public static let string = "0.1.0"
}
