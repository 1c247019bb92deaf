import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a response body to a new private temporary file (`O_EXCL`, mode 0600), chunk by chunk.
/// Not thread-safe: one writer per download.
final class TemporaryFileWriter {
    let url: URL
    private var descriptor: Int32
    private(set) var bytesWritten: Int64 = 0

    /// Creates `directory/pushmedia-fetch-<uuid>[.ext]`.
    init(directory: URL, fileExtension: String?) throws {
        var name = "pushmedia-fetch-\(UUID().uuidString.lowercased())"
        if let ext = fileExtension, !ext.isEmpty { name += ".\(ext)" }
        self.url = directory.appendingPathComponent(name)
        self.descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Appends the readable bytes of `buffer`.
    func write(_ buffer: ByteBuffer) throws {
        try buffer.withUnsafeReadableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = posixWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += written
            }
        }
        bytesWritten += Int64(buffer.readableBytes)
    }

    /// Closes the file (idempotent).
    func close() throws {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        #if canImport(Darwin)
        let result = Darwin.close(fd)
        #elseif canImport(Musl)
        let result = Musl.close(fd)
        #else
        let result = Glibc.close(fd)
        #endif
        if result != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Closes and deletes the file, ignoring errors.
    func discard() {
        try? close()
        unlink(url.path)
    }

    deinit {
        if descriptor >= 0 { try? close() }
    }
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, pointer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, pointer, count)
    #else
    return Glibc.write(fd, pointer, count)
    #endif
}
