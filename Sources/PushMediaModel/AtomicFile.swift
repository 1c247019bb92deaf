import Foundation

/// Writes a whole file atomically: a hidden temporary file in the same folder (mode 0644),
/// flushed when asked, then renamed over the target (atomic within one file system), so a reader
/// sees the old file or the new one, never half of one. The output store, the preview's pages and
/// the manifest command all write through it.
public enum AtomicFile {
    /// Writes `data` to `target`, creating its folder when missing.
    /// - Parameter sync: flush the data to disk before the rename (for files a reader must find
    ///   whole after a crash; the preview's item pages skip it, its summary page does not).
    public static func write(_ data: Data, to target: URL, sync: Bool = true) throws {
        let folder = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(TemporaryFileName.beside(target.lastPathComponent))
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: data)
            if sync { try handle.synchronize() }
            try handle.close()
            guard rename(temporary.path, target.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
