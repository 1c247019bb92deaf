import Foundation
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
        guard candidate == rootPath || candidate.hasPrefix(rootPath.hasSuffix("/") ? rootPath : rootPath + "/") else {
            return .failure(ItemError(.sourceForbidden, "\(source) is outside the input root \(rootPath)"))
        }
        return .success(candidate)
    }
}
