import Foundation
import PushMediaModel

extension InputFile {
    /// The error of a path that is not a regular file (or a link to one): opening a named pipe
    /// waits for a writer and a device never ends, so such inputs fail at once, unread. A folder
    /// that cannot be listed is `unreadable_input`, with the reason. Nil for a regular file, and
    /// for a path that cannot be examined (opening it reports why).
    public static func specialFileError(at path: String, source: String) -> ItemError? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return nil }
        if info.st_mode & S_IFMT == S_IFDIR {
            guard let folder = opendir(path) else {
                return ItemError(.unreadableInput, "\(source) is a folder that cannot be listed: \(String(cString: strerror(errno)))")
            }
            closedir(folder)
        }
        let kind: String = switch info.st_mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file"
        }
        return ItemError(.unsupportedType, "\(source) is not a regular file but \(kind)")
    }
}
