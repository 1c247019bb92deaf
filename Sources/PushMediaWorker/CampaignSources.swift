import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue

/// What `enqueue` puts on the queue: URLs as they are, files and folders (walked recursively,
/// hidden files skipped) as paths relative to the input root, which they must be under. A file
/// in a folder whose name is not valid UTF-8 is enqueued escaped (``EscapedPath/jobSource``).
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
                for file in files {
                    guard let source = EscapedPath(text: relative).appending(file.escapedSource) else {
                        throw Failure(description: "\(file.source) cannot be named")
                    }
                    sources.append(source.jobSource)
                }
            } else {
                sources.append(relative)
            }
        }
        var seen = Set<String>()
        return sources.filter { seen.insert($0).inserted }.map { NewJob(campaign: campaign, source: $0, profile: profile) }
    }

    /// `path` relative to `root` ("" for the root itself), or nil when it is outside.
    static func relativePath(_ path: String, under root: String) -> String? {
        if path.utf8.elementsEqual(root.utf8) { return "" }
        // By bytes, as SourceLocation does (a name may begin with a combining mark).
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.utf8.starts(with: prefix.utf8) else { return nil }
        return String(decoding: path.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}
