import Crypto
import Foundation
import NIOHTTP1

extension S3Client {
    /// What ``upload(file:to:contentType:cacheControl:)`` did.
    public enum UploadOutcome: Sendable, Equatable {
        /// The object was stored.
        case uploaded
        /// An object with the same size and SHA-256 was already there: nothing was sent.
        case alreadyStored
    }

    /// `Cache-Control` for content-addressed files: their bytes never change under their name.
    public static let immutableCacheControl = "public, max-age=31536000, immutable"

    /// Stores a file under `key`, unless an object with the same size and SHA-256 is already
    /// there (HEAD). Files up to ``multipartThreshold`` go in one PUT; larger ones as a multipart
    /// upload whose parts each carry their SHA-256, aborted when any step fails, so no partial
    /// object is ever visible under `key`.
    @discardableResult
    public func upload(file: URL, to location: (bucket: String, key: String), contentType: String, cacheControl: String)
        async throws -> UploadOutcome
    {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes = 0
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
            bytes += piece.count
        }
        let sha256 = SigV4Signer.hex(hasher.finalize())
        if let existing = try await head(bucket: location.bucket, key: location.key), existing.size == bytes, existing.sha256 == sha256 {
            return .alreadyStored
        }
        try handle.seek(toOffset: 0)
        if bytes <= multipartThreshold {
            try await put(
                handle.readToEnd() ?? Data(), bucket: location.bucket, key: location.key, contentType: contentType, cacheControl: cacheControl)
        } else {
            try await multipartUpload(
                from: handle, bytes: bytes, sha256: sha256, bucket: location.bucket, key: location.key, contentType: contentType,
                cacheControl: cacheControl)
        }
        return .uploaded
    }

    /// Sends the file in parts and completes the upload only when the parts hash to `sha256`
    /// (the file did not change since it was hashed); aborts it on any failure.
    func multipartUpload(
        from handle: FileHandle, bytes: Int, sha256: String, bucket: String, key: String, contentType: String, cacheControl: String
    ) async throws {
        let what = "multipart upload s3://\(bucket)/\(key)"
        let created = try await send(
            .POST, bucket: bucket, key: key, query: "uploads",
            headers: [
                ("Content-Type", contentType), ("Cache-Control", cacheControl), ("x-amz-checksum-algorithm", "SHA256"),
                ("x-amz-meta-sha256", sha256),
            ],
            what: what)
        guard let uploadID = S3XML(created.body).value("InitiateMultipartUploadResult/UploadId") else {
            throw S3Error(kind: .rejected, status: created.status, message: "\(what): the answer has no UploadId")
        }
        let upload = "uploadId=\(S3Path.encodeQueryValue(uploadID))"
        do {
            var parts: [(number: Int, etag: String, checksum: String)] = []
            var number = 1
            var whole = SHA256()
            var sent = 0
            while let part = try handle.read(upToCount: partSize), !part.isEmpty {
                whole.update(data: part)
                sent += part.count
                let digest = SHA256.hash(data: part)
                let checksum = Data(digest).base64EncodedString()
                let answer = try await send(
                    .PUT, bucket: bucket, key: key, query: "partNumber=\(number)&\(upload)",
                    headers: [("Content-Length", "\(part.count)"), ("x-amz-checksum-sha256", checksum)],
                    body: part, bodySHA256: SigV4Signer.hex(digest), what: "\(what), part \(number)")
                guard let etag = answer.headers.first(name: "etag") else {
                    throw S3Error(kind: .rejected, status: answer.status, message: "\(what), part \(number): the answer has no ETag")
                }
                parts.append((number, etag, checksum))
                number += 1
            }
            guard sent == bytes, SigV4Signer.hex(whole.finalize()) == sha256 else {
                throw S3Error(kind: .badDigest, message: "\(what): the file changed while it was being uploaded")
            }
            let list = parts.map {
                "<Part><ChecksumSHA256>\($0.checksum)</ChecksumSHA256><ETag>\(Self.escapeXML($0.etag))</ETag><PartNumber>\($0.number)</PartNumber></Part>"
            }
            let body = Data(
                ("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + list.joined() + "</CompleteMultipartUpload>").utf8)
            let completed = try await send(
                .POST, bucket: bucket, key: key, query: upload, headers: [("Content-Type", "application/xml")], body: body,
                what: "\(what), complete")
            // S3 may answer 200 and still fail the completion in the body.
            let xml = S3XML(completed.body)
            if xml.root == "Error" { throw S3Error.from(status: 500, body: completed.body, what: "\(what), complete") }
        } catch {
            // Best effort: an upload left open is invisible (no object under the key) and
            // bucket lifecycle rules can expire it; the caller sees the original error.
            _ = try? await send(.DELETE, bucket: bucket, key: key, query: upload, what: "\(what), abort")
            throw error
        }
    }

    static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
