import Foundation
import PushMediaModel

/// Lists the files of an input folder: recursively, hidden files and folders skipped, sorted,
/// never descending into the output folder or following links to folders. Special files (named
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

    public static func files(in root: URL, excluding excluded: [URL] = []) throws -> [InputFile] {
        let root = root.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
            throw Failure(description: "input folder \(root.path) does not exist")
        }
        guard isDirectory.boolValue else { throw Failure(description: "\(root.path) is not a folder") }
        // Excluded folders (the output folder) by device and inode: whatever their names.
        let excludedFolders = Set(excluded.compactMap { FileID(path: Array($0.standardizedFileURL.resolvingSymlinksInPath().path.utf8)) })

        var out: [InputFile] = []
        func walk(_ folder: [UInt8], _ prefix: [UInt8]) throws {
            let names: [[UInt8]]
            do {
                names = try entries(of: folder)
            } catch {
                guard !prefix.isEmpty else { throw Failure(description: "cannot list \(root.path): \(error)") }
                // A subfolder that cannot be listed is an input of its own, so the manifest
                // says so (unreadable_input) instead of the whole run stopping.
                out.append(InputFile(path: EscapedPath(bytes: folder), source: EscapedPath(bytes: prefix)))
                return
            }
            for name in names where name.first != UInt8(ascii: ".") {
                let path = folder + [UInt8(ascii: "/")] + name
                let relative = prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
                var info = stat()
                guard lstat(InputFile.cPath(path), &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR {
                    if excludedFolders.contains(FileID(info)) { continue }
                    try walk(path, relative)
                } else {
                    // Links to folders are not followed (no loops). Everything else is an input,
                    // so it is not lost: a broken link fails as unreadable, a named pipe, socket
                    // or device as not a regular file.
                    var target = stat()
                    if type == S_IFLNK, stat(InputFile.cPath(path), &target) == 0, target.st_mode & S_IFMT == S_IFDIR { continue }
                    out.append(InputFile(path: EscapedPath(bytes: path), source: EscapedPath(bytes: relative)))
                }
            }
        }
        try walk(Array(root.path.utf8), [])
        return out.sorted { ($0.source, $0.sourceEncoding != nil ? 1 : 0) < ($1.source, $1.sourceEncoding != nil ? 1 : 0) }
    }

    /// The names in a folder, as bytes (`.` and `..` left out).
    /// - Throws: ``Failure`` when the folder cannot be opened or read to its end.
    static func entries(of folder: [UInt8]) throws -> [[UInt8]] {
        guard let handle = opendir(InputFile.cPath(folder)) else {
            throw Failure(description: String(cString: strerror(errno)))
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(handle) else {
                if errno != 0 { throw Failure(description: String(cString: strerror(errno))) }
                return names
            }
            // Only up to the name's end: the entry may be shorter than `dirent`.
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
            }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
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
