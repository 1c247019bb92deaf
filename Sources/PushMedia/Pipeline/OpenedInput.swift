import Foundation
import PushMediaModel

/// An input as the media code can open it. libvips, FFmpeg and Foundation take paths as Swift
/// strings, which cannot hold a name that is not valid UTF-8; such an input is opened here by its
/// path's bytes (`open(2)`, read-only), and the media code gets `/proc/self/fd/N`, which names
/// the open file, for as long as this lives. A path that is valid UTF-8 is handed on unchanged.
///
/// The opening happens in the process that reads the file: the item process, for an item
/// contained in one (its request carries the escaped path), or the supervisor, which hashes the
/// file for its results cache. Symbolic links are followed, as for any input; which paths may be
/// opened (inside the input root) is decided before, where the job's source is resolved.
public final class OpenedInput: @unchecked Sendable {
    /// The input with a ``InputFile/path`` the media code can open (its source unchanged).
    public let input: InputFile
    private let lock = NSLock()
    private var descriptor: Int32

    /// Opens `input` when its path is escaped; else only holds it.
    /// - Throws: ``ItemError``: `unsupported_type` for a path that is no regular file (a named
    ///   pipe, a device: never opened), `unreadable_input` when it cannot be opened.
    public init(_ input: InputFile) throws {
        guard input.pathEncoding != nil else {
            self.input = input
            descriptor = -1
            return
        }
        guard let bytes = input.escapedPath.bytes else {
            throw ItemError(.unreadableInput, "cannot open \(input.source): its escaped path \(input.path) cannot be decoded")
        }
        if let error = InputFile.specialFileError(atBytes: bytes, source: input.source) { throw error }
        // Non-blocking, so that a file swapped for a named pipe since the check cannot hang the
        // open; the flag is cleared once the file is known to be a regular one.
        let opened = open(InputFile.cPath(bytes), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard opened >= 0 else {
            throw InputFile.openFailure(bytes, source: input.source)
        }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(opened)
            throw InputFile.specialFileError(atBytes: bytes, source: input.source)
                ?? ItemError(.unreadableInput, "cannot open \(input.source): it changed while it was opened")
        }
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
        let name = "/proc/self/fd/\(opened)"
        guard access(name, R_OK) == 0 else {
            Glibc.close(opened)
            throw ItemError(
                .unreadableInput,
                "cannot open \(input.source): its name is not UTF-8, and \(name) cannot name the open file (is /proc mounted?)")
        }
        var named = input
        named.path = name
        named.pathEncoding = nil
        self.input = named
        descriptor = opened
    }

    /// Closes the file (again: nothing).
    public func close() {
        lock.withLock {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    deinit { close() }
}
