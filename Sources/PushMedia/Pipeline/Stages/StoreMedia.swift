import Foundation
import PushMediaModel

extension PreparedMedia {
    /// Moves (or, for a kept original, copies) the movie or audio file into the output folder
    /// under its content address and describes it as the item's `media` attachment; a movie's
    /// `thumbnailTime` is its poster frame's time.
    func store(_ run: ItemRun, posterTime: Double?) throws -> Attachment {
        let store = OutputStore(directory: run.options.outputDirectory, layout: run.options.layout, ledger: run.options.ledger)
        let ext = type.fileExtensions[0]
        let stored: OutputStore.StoredFile
        do {
            stored = try store.storeFile(at: file, moving: isTemporary, suffix: Attachment.Role.media.fileSuffix, fileExtension: ext)
        } catch {
            if isTemporary { try? FileManager.default.removeItem(at: file) }
            throw ItemError.writing("media file", to: store.directory, error)
        }
        guard stored.bytes <= type.maxBytes else {
            throw ItemError(.internalError, "the \(ext) file is \(stored.bytes) bytes, over Apple's limit of \(type.maxBytes)")
        }
        return Attachment(
            identifier: Attachment.Role.media.rawValue, role: .media, file: stored.name,
            url: run.options.baseURL.map { OutputStore.url(base: $0, file: stored.name) },
            typeHint: type.typeHint, fileExtension: ext, mimeType: type.mimeType, bytes: stored.bytes,
            sha256: stored.sha256, width: width, height: height, budget: budget,
            durationSeconds: durationSeconds, media: encoding,
            options: Attachment.Options(thumbnailHidden: false, thumbnailTime: posterTime))
    }
}
