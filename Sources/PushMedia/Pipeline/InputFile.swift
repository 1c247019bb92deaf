import Foundation

/// One file to process: where it is and how the manifest names it.
public struct InputFile: Sendable, Equatable {
    /// Absolute path on disk.
    public var path: String
    /// Path relative to the input folder, `/`-separated: the manifest's `source`.
    public var source: String
    /// The file's SHA-256 (hex) when the caller has already hashed it (the queue worker does, for
    /// its results cache): the file is then not read whole a second time.
    public var sha256: String?

    public init(path: String, source: String, sha256: String? = nil) {
        self.path = path
        self.source = source
        self.sha256 = sha256
    }
}
