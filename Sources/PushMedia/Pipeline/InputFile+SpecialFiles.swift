import Foundation
import PushMediaModel

extension InputFile {
    /// The error of a path that is not a regular file (or a link to one): opening a named pipe
    /// waits for a writer and a device never ends, so such inputs fail at once, unread. A folder
    /// that cannot be listed is `unreadable_input`, with the reason. Nil for a regular file, and
    /// for a path that cannot be examined (opening it reports why).
    public static func specialFileError(at path: String, source: String) -> ItemError? {
        specialFileError(atBytes: Array(path.utf8), source: source)
    }

    /// ``specialFileError(at:source:)`` for a path given as its bytes (a name that is not UTF-8).
    public static func specialFileError(atBytes path: [UInt8], source: String) -> ItemError? {
        let path = cPath(path)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
        if info.st_mode & S_IFMT == S_IFDIR {
            guard let folder = opendir(path) else {
                return ItemError(.unreadableInput, "\(source) is a folder that cannot be listed: \(String(cString: strerror(errno)))")
            }
            closedir(folder)
        }
        let kind: String =
            switch info.st_mode & S_IFMT {
            case S_IFDIR: "a folder"
            case S_IFIFO: "a named pipe"
            case S_IFSOCK: "a socket"
            case S_IFCHR: "a character device"
            case S_IFBLK: "a block device"
            default: "a special file"
            }
        return ItemError(.unsupportedType, "\(source) is not a regular file but \(kind)")
    }

    /// The special-file error of this input's path (by its bytes, whatever its encoding); nil
    /// also when an escaped path cannot be decoded (opening it reports that).
    public func specialFileError() -> ItemError? {
        guard let bytes = escapedPath.bytes else { return nil }
        return Self.specialFileError(atBytes: bytes, source: source)
    }

    /// The error of a path that cannot be opened: `missing_input` when it does not exist (no
    /// such file, a symbolic link to nothing or in a loop, a path through a file), which a retry
    /// cannot fix, else `unreadable_input`, with the reason.
    static func openFailure(_ path: [UInt8], source: String) -> ItemError {
        let path = cPath(path)
        var info = stat()
        let (reason, missing): (String, Bool)
        if lstat(path, &info) != 0 {
            let code = errno
            (reason, missing) = (String(cString: strerror(code)), code == ENOENT || code == ENOTDIR || code == ELOOP)
        } else if info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 {
            (reason, missing) = (errno == ELOOP ? "symbolic link in a loop" : "broken symbolic link", true)
        } else {
            (reason, missing) = (access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "unknown error", false)
        }
        return ItemError(missing ? .missingInput : .unreadableInput, "cannot open \(source): \(reason)")
    }

    /// A path's bytes as the C string the system calls take.
    static func cPath(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
