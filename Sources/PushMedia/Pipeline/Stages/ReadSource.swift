import Foundation
import PushMediaModel

/// The input as its bytes describe it: size, SHA-256 and the format sniffed from the first bytes.
struct Source {
    var bytes: Int
    var sha256: String
    var format: MediaFormat
    /// What the format says the input is (an image may turn out animated once probed).
    var kind: MediaKind { format.kind }

    /// Reads the input once: its size, its SHA-256 and its format. Special files fail unread,
    /// inputs over `limits.maxInputBytes` before they are read, and when the caller already
    /// knows the hash only the first bytes are read.
    static func read(_ run: ItemRun) throws -> Source {
        let input = run.input
        if let error = InputFile.specialFileError(at: input.path, source: input.source) { throw error }
        guard let handle = FileHandle(forReadingAtPath: input.path) else {
            throw InputFile.openFailure(Array(input.path.utf8), source: input.source)
        }
        defer { try? handle.close() }
        var info = stat()
        if fstat(handle.fileDescriptor, &info) == 0, Int(info.st_size) > run.profile.limits.maxInputBytes {
            run.record(bytes: Int(info.st_size))
            throw ItemError(
                .inputTooLarge,
                "the file is \(info.st_size) bytes, over the profile's limit of \(run.profile.limits.maxInputBytes) bytes")
        }

        var header: [UInt8] = []
        let hashed: (sha256: String, bytes: Int)
        do {
            if let known = input.sha256 {
                header = [UInt8](try handle.read(upToCount: MediaSniffer.headerLength) ?? Data())
                hashed = (known, Int(info.st_size))
            } else {
                hashed = try ContentHash.sha256(of: handle) { chunk in
                    if header.count < MediaSniffer.headerLength {
                        header += chunk.prefix(MediaSniffer.headerLength - header.count)
                    }
                }
            }
        } catch {
            throw ItemError(.unreadableInput, "cannot read \(input.source): \(error.localizedDescription)")
        }
        run.record(bytes: hashed.bytes, sha256: hashed.sha256)
        guard hashed.bytes > 0 else { throw ItemError(.emptyInput, "the file is empty (0 bytes)") }
        guard let format = MediaSniffer.detect(header) else {
            throw ItemError(
                .unsupportedType,
                "not an image, movie or audio file PushMedia knows (first bytes: \(hexPreview(header)))")
        }
        run.record(kind: format.kind)
        return Source(bytes: hashed.bytes, sha256: hashed.sha256, format: format)
    }

    private static func hexPreview(_ bytes: [UInt8]) -> String {
        bytes.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
