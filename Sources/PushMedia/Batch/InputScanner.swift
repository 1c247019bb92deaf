import Foundation
import PushMediaModel

/// Lists the files of an input folder: recursively, hidden files and folders skipped, never descending into the output folder or following links to folders. Special files (named
/// pipes, sockets, devices) are listed too, and fail as not regular files; so is a subfolder that
/// cannot be listed, which fails as unreadable.
///
/// Folders are read entry by entry as bytes (`opendir`/`readdir`, `lstat`), so a name that is not
/// valid UTF-8 (a Latin-1 `café.jpg`) is an input like any other, in a subfolder of such a name
/// too: its ``InputFile/source`` and ``InputFile/path`` are then percent-escaped (``EscapedPath``).
public enum InputScanner {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every file, sorted by source (the whole list in memory: for small folders and tests;
    /// ``Walk`` streams).
    public static func files(in root: URL, excluding excluded: [URL] = []) throws -> [InputFile] {
        let walk = try Walk(root: root, excluding: excluded)
        var out: [InputFile] = []
        while true {
            let chunk = try walk.next(upTo: 4096)
            if chunk.isEmpty { break }
            out += chunk
        }
        return out.sorted { ($0.source, $0.sourceEncoding != nil ? 1 : 0) < ($1.source, $1.sourceEncoding != nil ? 1 : 0) }
    }

    /// How many files ``files(in:excluding:)`` would list, counted without keeping them.
    public static func count(in root: URL, excluding excluded: [URL] = []) throws -> Int {
        let walk = try Walk(root: root, excluding: excluded)
        var count = 0
        while true {
            let chunk = try walk.next(upTo: 4096)
            if chunk.isEmpty { return count }
            count += chunk.count
        }
    }

    /// The files of a folder, a chunk at a time, in the order the folders list them (unsorted):
    /// memory holds one open folder per level and one chunk, not the folder's names, so a
    /// catalogue folder of 10^6 files streams (the queue sorts them).
    public final class Walk {
        private let root: [UInt8]
        private let rootText: String
        private let excludedFolders: Set<FileID>
        /// Open folders, deepest last: the handle, its path and its path relative to the root.
        private var stack: [(handle: OpaquePointer, path: [UInt8], prefix: [UInt8])] = []

        public init(root: URL, excluding excluded: [URL] = []) throws {
            let root = root.standardizedFileURL.resolvingSymlinksInPath()
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
                throw Failure(description: "input folder \(root.path) does not exist")
            }
            guard isDirectory.boolValue else { throw Failure(description: "\(root.path) is not a folder") }
            rootText = root.path
            self.root = Array(root.path.utf8)
            // Excluded folders (the output folder) by device and inode: whatever their names.
            excludedFolders = Set(excluded.compactMap { FileID(path: Array($0.standardizedFileURL.resolvingSymlinksInPath().path.utf8)) })
            guard let handle = opendir(InputFile.cPath(self.root)) else {
                throw Failure(description: "cannot list \(rootText): \(String(cString: strerror(errno)))")
            }
            stack = [(handle, self.root, [])]
        }

        deinit {
            for folder in stack { closedir(folder.handle) }
        }

        /// Up to `limit` more files; empty when the walk is over.
        /// - Throws: ``Failure`` when the root folder cannot be read to its end (a subfolder that
        ///   cannot be listed is an input of its own, which fails as unreadable).
        public func next(upTo limit: Int) throws -> [InputFile] {
            var out: [InputFile] = []
            while out.count < limit, let (handle, folder, prefix) = stack.last {
                errno = 0
                guard let entry = readdir(handle) else {
                    let failure = errno
                    closedir(handle)
                    stack.removeLast()
                    if failure != 0 {
                        guard !prefix.isEmpty else {
                            throw Failure(description: "cannot list \(rootText): \(String(cString: strerror(failure)))")
                        }
                        out.append(InputFile(path: EscapedPath(bytes: folder), source: EscapedPath(bytes: prefix)))
                    }
                    continue
                }
                let name = InputScanner.name(of: entry)
                // Hidden files and folders are skipped (`.` and `..` with them).
                guard name.first != UInt8(ascii: ".") else { continue }
                let path = folder + [UInt8(ascii: "/")] + name
                let relative = prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
                var info = stat()
                guard lstat(InputFile.cPath(path), &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR {
                    if excludedFolders.contains(FileID(info)) { continue }
                    guard let child = opendir(InputFile.cPath(path)) else {
                        // A subfolder that cannot be listed is an input of its own, so the
                        // manifest says so (unreadable_input) instead of the whole run stopping.
                        out.append(InputFile(path: EscapedPath(bytes: path), source: EscapedPath(bytes: relative)))
                        continue
                    }
                    stack.append((child, path, relative))
                } else {
                    // Links to folders are not followed (no loops). Everything else is an input,
                    // so it is not lost: a broken link fails as unreadable, a named pipe, socket
                    // or device as not a regular file.
                    var target = stat()
                    if type == S_IFLNK, stat(InputFile.cPath(path), &target) == 0, target.st_mode & S_IFMT == S_IFDIR { continue }
                    out.append(InputFile(path: EscapedPath(bytes: path), source: EscapedPath(bytes: relative)))
                }
            }
            return out
        }
    }

    /// An entry's name, as bytes: only up to its end (the entry may be shorter than `dirent`).
    static func name(of entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
        withUnsafePointer(to: &entry.pointee.d_name) { field in
            field.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
    }

    /// A file's identity on the machine.
    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }

        init?(path: [UInt8]) {
            var info = stat()
            guard stat(InputFile.cPath(path), &info) == 0 else { return nil }
            self.init(info)
        }
    }
}
