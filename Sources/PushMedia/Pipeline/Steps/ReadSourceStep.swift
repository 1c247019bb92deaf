import Foundation
import PushMediaModel

/// Reads the input once: its size, its SHA-256 and its format, sniffed from the first bytes. When
/// the caller already knows the hash, only the first bytes are read.
struct ReadSourceStep: PipelineStep {
    var name: String { "read" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        if let error = InputFile.specialFileError(at: context.input.path, source: context.input.source) { throw error }
        guard let handle = FileHandle(forReadingAtPath: context.input.path) else {
            throw ItemError(.unreadableInput, "cannot open \(context.input.source): \(describeOpenFailure(context.input.path))")
        }
        defer { try? handle.close() }
        // Refuse oversized inputs before reading them.
        var info = stat()
        if fstat(handle.fileDescriptor, &info) == 0, Int(info.st_size) > context.profile.limits.maxInputBytes {
            context.sourceBytes = Int(info.st_size)
            throw ItemError(
                .inputTooLarge,
                "the file is \(info.st_size) bytes, over the profile's limit of \(context.profile.limits.maxInputBytes) bytes")
        }

        if let known = context.input.sha256 {
            let header: [UInt8]
            do {
                header = [UInt8](try handle.read(upToCount: MediaSniffer.headerLength) ?? Data())
            } catch {
                throw ItemError(.unreadableInput, "cannot read \(context.input.source): \(error.localizedDescription)")
            }
            context.sourceBytes = Int(info.st_size)
            context.sourceSHA256 = known
            try sniff(header, total: Int(info.st_size), context)
            return
        }

        var header: [UInt8] = []
        let hashed: (sha256: String, bytes: Int)
        do {
            hashed = try ContentHash.sha256(of: handle) { chunk in
                if header.count < MediaSniffer.headerLength {
                    header += chunk.prefix(MediaSniffer.headerLength - header.count)
                }
            }
        } catch {
            throw ItemError(.unreadableInput, "cannot read \(context.input.source): \(error.localizedDescription)")
        }
        let total = hashed.bytes
        context.sourceBytes = total
        context.sourceSHA256 = hashed.sha256
        try sniff(header, total: total, context)
    }

    private func sniff(_ header: [UInt8], total: Int, _ context: ProcessingContext) throws {
        guard total > 0 else { throw ItemError(.emptyInput, "the file is empty (0 bytes)") }
        guard let format = MediaSniffer.detect(header) else {
            throw ItemError(
                .unsupportedType,
                "not an image, movie or audio file PushMedia knows (first bytes: \(hexPreview(header)))")
        }
        context.format = format
        context.kind = format.kind
    }

    private func hexPreview(_ bytes: [UInt8]) -> String {
        bytes.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    private func describeOpenFailure(_ path: String) -> String {
        var info = stat()
        if lstat(path, &info) != 0 { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 { return "broken symbolic link" }
        return access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "unknown error"
    }
}
