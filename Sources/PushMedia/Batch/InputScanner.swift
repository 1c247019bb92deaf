import Foundation

/// Lists the files of an input folder: recursively, hidden files and folders skipped, sorted,
/// never descending into the output folder or following links to folders. Special files (named
/// pipes, sockets, devices) are listed too, and fail as not regular files; so is a subfolder that
/// cannot be listed, which fails as unreadable.
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
        let excludedPaths = Set(excluded.map { $0.standardizedFileURL.resolvingSymlinksInPath().path })

        var out: [InputFile] = []
        func walk(_ folder: URL, _ prefix: String) throws {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            } catch {
                guard !prefix.isEmpty else {
                    throw Failure(description: "cannot list \(folder.path): \(error.localizedDescription)")
                }
                // A subfolder that cannot be listed is an input of its own, so the manifest
                // says so (unreadable_input) instead of the whole run stopping.
                out.append(InputFile(path: folder.path, source: prefix))
                return
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let url = folder.appendingPathComponent(name)
                let relative = prefix.isEmpty ? name : prefix + "/" + name
                var info = stat()
                guard lstat(url.path, &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR {
                    if excludedPaths.contains(url.standardizedFileURL.path) { continue }
                    try walk(url, relative)
                } else {
                    // Links to folders are not followed (no loops). Everything else is an input,
                    // so it is not lost: a broken link fails as unreadable, a named pipe, socket
                    // or device as not a regular file.
                    var target = stat()
                    if type == S_IFLNK, stat(url.path, &target) == 0, target.st_mode & S_IFMT == S_IFDIR { continue }
                    out.append(InputFile(path: url.path, source: relative))
                }
            }
        }
        try walk(root, "")
        return out.sorted { $0.source < $1.source }
    }
}
