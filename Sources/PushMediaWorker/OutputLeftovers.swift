import Foundation
import PushMediaModel

/// The hidden temporary files (``TemporaryFileName``: media being made, files being written
/// before their rename) that a killed `process` run or worker left in an output folder.
public enum OutputLeftovers {
    /// How long (seconds) a temporary file must have gone unmodified before a worker removes it: longer
    /// than any item can take. Workers share their output folder, so another worker's item may
    /// be writing a temporary right now; an item ends by its hard deadline, at most 4,505 s for
    /// the longest time limits a profile accepts (3,600 s × 1.25 + 5 s), and its writers touch
    /// the file as they go.
    public static let unusedForWorkers: TimeInterval = 2 * 4505

    /// Removes the temporaries in `folder` and its shard folders (two hex digits) last modified
    /// before `modifiedBefore` (nil: all of them). Only ``TemporaryFileName`` names, only regular
    /// files.
    /// - Returns: how many files were removed.
    @discardableResult
    public static func remove(in folder: URL, modifiedBefore: Date? = nil) -> Int {
        removeFiles(in: folder) { name, _, info in
            guard TemporaryFileName.isTemporary(name) else { return false }
            guard let modifiedBefore else { return true }
            return Double(info.st_mtim.tv_sec) < modifiedBefore.timeIntervalSince1970
        }
    }

    /// Removes the regular files in `folder` and its shard folders (two hex digits) for which
    /// `shouldRemove(name, path relative to folder, lstat)` says so; symbolic links and other
    /// folders are never followed.
    /// - Returns: how many files were removed.
    static func removeFiles(in folder: URL, where shouldRemove: (String, String, stat) -> Bool) -> Int {
        let files = FileManager.default
        var removed = 0
        func sweep(_ directory: URL, prefix: String) {
            guard let names = try? files.contentsOfDirectory(atPath: directory.path) else { return }
            for name in names {
                let entry = directory.appendingPathComponent(name)
                var info = stat()
                guard lstat(entry.path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFREG {
                    if shouldRemove(name, prefix + name, info), (try? files.removeItem(at: entry)) != nil { removed += 1 }
                } else if prefix.isEmpty && (info.st_mode & S_IFMT) == S_IFDIR && name.count == 2 && name.allSatisfy(\.isHexDigit) {
                    sweep(entry, prefix: name + "/")
                }
            }
        }
        sweep(folder, prefix: "")
        return removed
    }
}
