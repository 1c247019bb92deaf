import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue

/// What `enqueue` puts on the queue: URLs as they are, files and folders (walked recursively,
/// hidden files skipped) as paths relative to the input root, which they must be under.
public enum CampaignSources {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The jobs for `arguments` (paths or http(s) URLs) of `campaign` under `profile`.
    public static func jobs(
        for arguments: [String], root: URL, campaign: String, profile: String, excluding: [URL] = []
    ) throws -> [NewJob] {
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        var sources: [String] = []
        for argument in arguments {
            if SourceLocation.isURL(argument) {
                guard let url = URL(string: argument), url.host?.isEmpty == false else {
                    throw Failure(description: "\(argument) is not a valid URL")
                }
                sources.append(argument)
                continue
            }
            let url = URL(fileURLWithPath: argument).standardizedFileURL.resolvingSymlinksInPath()
            guard let relative = relativePath(url.path, under: rootPath) else {
                throw Failure(description: "\(argument) is not under the input root \(rootPath) (set --root)")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw Failure(description: "\(argument) does not exist")
            }
            if isDirectory.boolValue {
                let files = try InputScanner.files(in: url, excluding: excluding)
                sources += files.map { relative.isEmpty ? $0.source : relative + "/" + $0.source }
            } else {
                sources.append(relative)
            }
        }
        var seen = Set<String>()
        return sources.filter { seen.insert($0).inserted }.map { NewJob(campaign: campaign, source: $0, profile: profile) }
    }

    /// `path` relative to `root` ("" for the root itself), or nil when it is outside.
    static func relativePath(_ path: String, under root: String) -> String? {
        if path == root { return "" }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
    }
}
