import Crypto
import Foundation

/// How PushMedia names content: SHA-256 as lowercase hex. One place for the input hash (the
/// manifest's `sourceSHA256`, the queue's results cache) and the output file names.
public enum ContentHash {
    public static func sha256(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Streams the file 1 MiB at a time (never whole in memory); `chunk` sees each piece in order,
    /// e.g. to keep the first bytes for sniffing.
    public static func sha256(of handle: FileHandle, chunk: (Data) -> Void = { _ in }) throws -> (sha256: String, bytes: Int) {
        var hasher = SHA256()
        var bytes = 0
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
            chunk(piece)
            bytes += piece.count
        }
        return (hex(hasher.finalize()), bytes)
    }

    /// ``sha256(of:chunk:)`` of the file at `url`.
    public static func sha256(ofFileAt url: URL) throws -> (sha256: String, bytes: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try sha256(of: handle)
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
