import Foundation
import PushMediaModel

/// One file to process: where it is and how the manifest names it.
public struct InputFile: Sendable, Equatable {
    /// Absolute path on disk. When its bytes are not valid UTF-8 this is their escaped text
    /// (``pathEncoding`` is then `percent`), which names no file: ``ItemProcessor`` opens the
    /// file by its bytes and hands the media code `/proc/self/fd/N` (``OpenedInput``).
    public var path: String
    /// Nil when ``path`` is the path itself; `percent` when it is the escaped text of its bytes.
    public var pathEncoding: SourceEncoding?
    /// Path relative to the input folder, `/`-separated: the manifest's `source` (escaped like
    /// ``path`` when not valid UTF-8).
    public var source: String
    /// The manifest's `sourceEncoding`: nil when ``source`` is the path itself.
    public var sourceEncoding: SourceEncoding?
    /// The file's SHA-256 (hex) when the caller has already hashed it (the queue worker does, for
    /// its results cache): the file is then not read whole a second time.
    public var sha256: String?

    public init(
        path: String, source: String, sha256: String? = nil, pathEncoding: SourceEncoding? = nil,
        sourceEncoding: SourceEncoding? = nil
    ) {
        self.path = path
        self.pathEncoding = pathEncoding
        self.source = source
        self.sourceEncoding = sourceEncoding
        self.sha256 = sha256
    }

    /// An input named by escaped paths: the absolute path and the source.
    public init(path: EscapedPath, source: EscapedPath, sha256: String? = nil) {
        self.init(path: path.text, source: source.text, sha256: sha256, pathEncoding: path.encoding, sourceEncoding: source.encoding)
    }

    /// ``path`` and ``pathEncoding`` together.
    public var escapedPath: EscapedPath { EscapedPath(text: path, encoding: pathEncoding) }

    /// ``source`` and ``sourceEncoding`` together.
    public var escapedSource: EscapedPath { EscapedPath(text: source, encoding: sourceEncoding) }

    /// The source as the queue's job source (``EscapedPath/jobSource``).
    public var jobSource: String { escapedSource.jobSource }
}
