import Foundation

/// A downloaded source: a temporary file the caller owns and must delete (``removeFile()``).
public struct FetchedSource: Sendable, Hashable {
    /// The temporary file holding exactly the response body.
    public let fileURL: URL
    /// The URL the body came from, after redirects (query included; redact before logging).
    public let finalURL: URL
    /// The number of bytes written to ``fileURL``.
    public let byteCount: Int64
    /// The response `Content-Type`, if any.
    public let contentType: String?
    /// A safe file name from the final URL's path (e.g. `photo.jpg`), for the item's source name.
    public let suggestedFileName: String
    /// How many redirects were followed.
    public let redirectCount: Int

    /// Creates a result (used by ``SourceFetcher``).
    public init(
        fileURL: URL, finalURL: URL, byteCount: Int64, contentType: String?,
        suggestedFileName: String, redirectCount: Int
    ) {
        self.fileURL = fileURL
        self.finalURL = finalURL
        self.byteCount = byteCount
        self.contentType = contentType
        self.suggestedFileName = suggestedFileName
        self.redirectCount = redirectCount
    }

    /// Deletes the temporary file. A file that is already gone is not an error.
    public func removeFile() throws {
        do {
            try FileManager.default.removeItem(at: fileURL)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            return
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return }
            throw error
        }
    }
}
