import Foundation
import PushMedia
import PushMediaModel

/// Pure rules for a job's source: an http(s) URL, or a path relative to the input root that
/// must stay inside it.
public enum SourceLocation {
    public static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The absolute path of a relative source under `root`, refusing absolute paths without a
    /// root, `..` escapes and symbolic links that lead out of the root.
    public static func resolve(_ source: String, root: URL?) -> Result<String, ItemError> {
        guard let root else {
            guard source.hasPrefix("/") else {
                return .failure(ItemError(.sourceForbidden, "\(source) is relative but the worker has no --root"))
            }
            return .success(source)
        }
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        let candidate = (source.hasPrefix("/") ? URL(fileURLWithPath: source) : root.appendingPathComponent(source))
            .standardizedFileURL.resolvingSymlinksInPath().path
        // By bytes: `hasPrefix` compares characters, and a name that begins with a combining mark
        // (U+0301) makes one character of it and the `/` before it.
        let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        guard candidate.utf8.elementsEqual(rootPath.utf8) || candidate.utf8.starts(with: prefix.utf8) else {
            return .failure(ItemError(.sourceForbidden, "\(source) is outside the input root \(rootPath)"))
        }
        return .success(candidate)
    }

    /// ``resolve(_:root:)`` for a source that may be escaped (a name that is not UTF-8): the same
    /// rules, applied to its bytes (`..` removed, then symbolic links resolved with `realpath`).
    /// The path is escaped when its bytes are not UTF-8.
    public static func resolve(_ source: EscapedPath, root: URL?) -> Result<EscapedPath, ItemError> {
        guard source.encoding != nil else { return resolve(source.text, root: root).map { EscapedPath(text: $0) } }
        guard let bytes = source.bytes, !bytes.isEmpty, !bytes.contains(0) else {
            return .failure(ItemError(.unreadableInput, "the escaped source \(source.text) cannot be decoded"))
        }
        let slash = UInt8(ascii: "/")
        guard let root else {
            guard bytes.first == slash else {
                return .failure(ItemError(.sourceForbidden, "\(source) is relative but the worker has no --root"))
            }
            return .success(source)
        }
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        let rootBytes = Array(rootPath.utf8)
        let joined = normalized(bytes.first == slash ? bytes : rootBytes + [slash] + bytes)
        let candidate = realPath(joined) ?? joined
        let prefix = rootBytes.last == slash ? rootBytes : rootBytes + [slash]
        guard candidate == rootBytes || candidate.starts(with: prefix) else {
            return .failure(ItemError(.sourceForbidden, "\(source) is outside the input root \(rootPath)"))
        }
        return .success(EscapedPath(bytes: candidate))
    }

    /// An absolute path without `.`, `..` or empty components (lexically, as
    /// `standardizedFileURL` does).
    static func normalized(_ path: [UInt8]) -> [UInt8] {
        var components: [ArraySlice<UInt8>] = []
        for component in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                _ = components.popLast()
                continue
            }
            components.append(component)
        }
        return components.reduce(into: [UInt8]()) { $0 += [UInt8(ascii: "/")] + $1 }.nonEmpty ?? [UInt8(ascii: "/")]
    }

    /// The path with every symbolic link resolved (`realpath(3)`), or nil when it does not exist.
    static func realPath(_ path: [UInt8]) -> [UInt8]? {
        guard let resolved = realpath(path.map { CChar(bitPattern: $0) } + [0], nil) else { return nil }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }
}

extension Array {
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
