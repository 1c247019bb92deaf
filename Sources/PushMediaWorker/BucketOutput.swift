import Foundation
import Logging
import PushMediaModel
import PushMediaObjectStore

/// Outputs kept in a bucket instead of a local folder: the pipeline writes each job's files into
/// a temporary folder of its own, they are uploaded under the prefix (content-addressed names,
/// immutable), and the folder is removed, so nothing stays on local disk past the job.
public struct BucketOutput: Sendable {
    public var client: S3Client
    public var location: S3Location
    /// Where per-job temporary folders are made.
    public var scratch: URL

    public init(client: S3Client, location: S3Location, scratch: URL = FileManager.default.temporaryDirectory) {
        self.client = client
        self.location = location
        self.scratch = scratch
    }

    /// `Cache-Control` of the manifest and preview page: they change under their name.
    public static let revalidatedCacheControl = "no-cache"

    /// A new, empty folder for one job's files.
    func makeJobFolder() throws -> URL {
        let folder = scratch.appendingPathComponent("pushmedia-job-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Whether every attachment is stored with its size and SHA-256 (one HEAD each). A failed
    /// HEAD counts as "not stored": the job then processes and uploads again.
    func hasStored(_ attachments: [Attachment]) async -> Bool {
        for attachment in attachments {
            guard let head = try? await client.head(bucket: location.bucket, key: location.key(attachment.file)),
                head.size == attachment.bytes, head.sha256 == attachment.sha256
            else { return false }
        }
        return true
    }

    /// Uploads an ok item's files from `folder`; the item unchanged when all are stored, else a
    /// failed item with ``PushMediaModel/ErrorCode/storeFailed`` and the storage's reason.
    func store(_ item: Item, from folder: URL) async -> Item {
        guard item.status == .ok else { return item }
        for attachment in item.attachments {
            do {
                try await client.upload(
                    file: folder.appendingPathComponent(attachment.file), to: (location.bucket, location.key(attachment.file)),
                    contentType: attachment.mimeType, cacheControl: S3Client.immutableCacheControl)
            } catch {
                return .failed(
                    source: item.source, sourceEncoding: item.sourceEncoding, kind: item.kind,
                    error: ItemError(.storeFailed, "could not store \(attachment.file) in \(location): \(error)"),
                    sourceSHA256: item.sourceSHA256, sourceBytes: item.sourceBytes, probe: item.probe)
            }
        }
        return item
    }

    /// Uploads a document file (the manifest, a preview page) under the prefix, without reading
    /// it whole into memory.
    public func putFile(_ file: URL, name: String, contentType: String) async throws {
        try await client.upload(
            file: file, to: (location.bucket, location.key(name)), contentType: contentType, cacheControl: Self.revalidatedCacheControl)
    }

    /// Uploads a small document under the prefix.
    public func put(_ data: Data, name: String, contentType: String) async throws {
        try await client.put(
            data, bucket: location.bucket, key: location.key(name), contentType: contentType, cacheControl: Self.revalidatedCacheControl)
    }
}
