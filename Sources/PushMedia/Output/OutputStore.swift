import Foundation
import PushMediaModel

/// The output folder: files named by their content (`<sha256 prefix>-<suffix>.<ext>`, in a
/// subfolder of the hash's first two digits when ``layout`` is sharded) and written atomically
/// (temporary file + rename), so a re-run never leaves half a file and identical outputs are
/// stored once.
public struct OutputStore: Sendable {
    public var directory: URL
    public var layout: OutputLayout
    /// Where each file stored is recorded before it is renamed into place (``OutputLedger``):
    /// `process` sets it, so that its sweep of the folder removes only what PushMedia wrote.
    public var ledger: OutputLedger?

    /// Hex digits of the SHA-256 in file names (64 bits: collisions are not a practical concern).
    public static let hashPrefixLength = 16

    public init(directory: URL, layout: OutputLayout = .flat, ledger: OutputLedger? = nil) {
        self.directory = directory
        self.layout = layout
        self.ledger = ledger
    }

    public struct StoredFile: Sendable, Equatable {
        /// The file's path relative to the output folder (`ab/…` when sharded).
        public var name: String
        public var sha256: String
        public var bytes: Int
    }

    /// Stores `data` and returns its name and hash. A file with the same name (same content) is
    /// left as it is.
    public func write(_ data: Data, suffix: String, fileExtension: String) throws -> StoredFile {
        let sha = ContentHash.sha256(data)
        let name = layout.path(of: "\(sha.prefix(Self.hashPrefixLength))-\(suffix).\(fileExtension)")
        let target = directory.appendingPathComponent(name)
        try ledger?.record(name)
        if let existing = try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int,
            existing == data.count
        {
            return StoredFile(name: name, sha256: sha, bytes: data.count)
        }
        try Self.writeAtomically(data, to: target)
        return StoredFile(name: name, sha256: sha, bytes: data.count)
    }

    /// Stores the file at `source` (hashed as it is read, never whole in memory): moved in when
    /// `moving` (it must be on the output folder's file system), else copied. A file with the
    /// same name (same content) is kept and a moved source removed.
    public func storeFile(at source: URL, moving: Bool, suffix: String, fileExtension: String) throws -> StoredFile {
        let (sha, bytes) = try ContentHash.sha256(ofFileAt: source)
        let name = layout.path(of: "\(sha.prefix(Self.hashPrefixLength))-\(suffix).\(fileExtension)")
        let target = directory.appendingPathComponent(name)
        let stored = StoredFile(name: name, sha256: sha, bytes: bytes)
        try ledger?.record(name)
        if let existing = try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int, existing == bytes {
            if moving { try? FileManager.default.removeItem(at: source) }
            return stored
        }
        let folder = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if moving {
            guard rename(source.path, target.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return stored
        }
        let temporary = folder.appendingPathComponent(TemporaryFileName.beside(target.lastPathComponent))
        do {
            try Self.copyContents(of: source, to: temporary)
            guard rename(temporary.path, target.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return stored
    }

    /// Copies the bytes of `source` into a new file `target`. Not `FileManager.copyItem`, which
    /// copies a symbolic link as a link: a kept original read through `/proc/self/fd/N` (a name
    /// that is not UTF-8, ``OpenedInput``) is one, and would leave a link to the input in the
    /// output folder instead of the file.
    static func copyContents(of source: URL, to target: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }

    /// Writes to a hidden temporary file in the same folder, flushes it, then renames it over
    /// `target` (``AtomicFile``).
    public static func writeAtomically(_ data: Data, to target: URL) throws {
        try AtomicFile.write(data, to: target, sync: true)
    }

    /// Whether `name` (a file name, without a folder) is one this store makes:
    /// `<16 hex digits>-<role>.<extension>`, the role one of the attachments' (`thumb`,
    /// `expanded`, `media`, `android`) and the extension 1–5 lowercase letters or digits.
    public static func isOutputName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > hashPrefixLength + 1, bytes[hashPrefixLength] == UInt8(ascii: "-"),
            bytes[..<hashPrefixLength].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return false }
        let rest = name.utf8.dropFirst(hashPrefixLength + 1)
        guard let dot = rest.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let role = String(decoding: rest[..<dot], as: UTF8.self)
        let ext = rest[rest.index(after: dot)...]
        return Attachment.Role.allCases.contains { $0.fileSuffix == role } && (1...5).contains(ext.count)
            && ext.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7a).contains($0) }
    }

    /// `base` joined with `file` by exactly one `/`.
    public static func url(base: String, file: String) -> String {
        base.hasSuffix("/") ? base + file : base + "/" + file
    }
}
