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

    /// One argument, checked (``checked(_:root:)``): a URL as it is, a file as its job source,
    /// or a folder to walk.
    public enum Source: Sendable {
        case source(String)
        case folder(URL, relative: String)
    }

    /// Calls `body` with the jobs for `sources` of `campaign` under `profile`, up to `chunkSize`
    /// at a time: folders are walked a chunk at a time (``InputScanner/Walk``, unsorted), so
    /// memory holds one chunk whatever the folder's size. A file named by two arguments (a folder
    /// and a file in it) comes twice; the queue keeps one job.
    /// - Throws: ``Failure`` for a file in a folder that cannot be named; what `body` throws.
    public static func forEachChunk(
        of sources: [Source], campaign: String, profile: String, excluding: [URL] = [], chunkSize: Int = 1000,
        _ body: ([NewJob]) async throws -> Void
    ) async throws {
        // Files and URLs named one by one go in chunks too (one transaction per chunk).
        var named: [NewJob] = []
        for source in sources {
            switch source {
            case .source(let source):
                named.append(NewJob(campaign: campaign, source: source, profile: profile))
                if named.count >= chunkSize {
                    try await body(named)
                    named.removeAll()
                }
            case .folder(let url, let relative):
                let walk = try InputScanner.Walk(root: url, excluding: excluding)
                while true {
                    let chunk = try walk.next(upTo: chunkSize)
                    if chunk.isEmpty { break }
                    try await body(try jobs(chunk, in: relative, campaign: campaign, profile: profile))
                }
            }
        }
        if !named.isEmpty { try await body(named) }
    }

    /// The jobs of files found in the folder at `relative` (to the root).
    private static func jobs(_ files: [InputFile], in relative: String, campaign: String, profile: String) throws -> [NewJob] {
        try files.map { file in
            guard let source = EscapedPath(text: relative).appending(file.escapedSource) else {
                throw Failure(description: "\(file.source) cannot be named")
            }
            return NewJob(campaign: campaign, source: source.jobSource, profile: profile)
        }
    }

    /// Every argument (a path or an http(s) URL) checked, in order, before anything is walked or
    /// enqueued.
    /// - Throws: ``Failure`` for a URL that is not valid, a path that does not exist or is not
    ///   under `root`.
    public static func checked(_ arguments: [String], root: URL) throws -> [Source] {
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        var sources: [Source] = []
        for argument in arguments {
            if SourceLocation.isURL(argument) {
                guard let url = URL(string: argument), url.host?.isEmpty == false else {
                    throw Failure(description: "\(argument) is not a valid URL")
                }
                sources.append(.source(argument))
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
            sources.append(isDirectory.boolValue ? .folder(url, relative: relative) : .source(relative))
        }
        return sources
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
