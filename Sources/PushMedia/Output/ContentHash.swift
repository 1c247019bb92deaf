import Crypto
import Foundation

/// How PushMedia names content: SHA-256 as lowercase hex. One place for the input hash (the
/// manifest's `sourceSHA256`, the queue's results cache) and the output file names.
public enum ContentHash {
    public static func sha256(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Bytes read at a time by ``sha256(of:chunk:)``.
    static let readSize = 256 << 10

    /// Streams the file through one buffer of ``readSize`` bytes, reused for every read (never
    /// whole in memory; a fresh buffer per read cost page faults as the kernel copied into it);
    /// `chunk` sees each piece in order, e.g. to keep the first bytes for sniffing.
    public static func sha256(of handle: FileHandle, chunk: (UnsafeRawBufferPointer) -> Void = { _ in }) throws -> (sha256: String, bytes: Int) {
        var hasher = SHA256()
        var bytes = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { break }
            let piece = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            hasher.update(bufferPointer: piece)
            chunk(piece)
            bytes += count
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
