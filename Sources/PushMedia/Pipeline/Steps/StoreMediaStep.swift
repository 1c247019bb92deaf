import Foundation
import PushMediaModel

/// Moves (or, for a kept original, copies) the movie or audio file into the output folder under
/// its content address and describes it as the item's `media` attachment; a movie's
/// `thumbnailTime` is the poster frame's time.
struct StoreMediaStep: PipelineStep {
    var name: String { "store media" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard let media = context.media else { return }
        let store = OutputStore(directory: context.options.outputDirectory)
        let ext = media.type.fileExtensions[0]
        let stored: OutputStore.StoredFile
        do {
            stored = try store.storeFile(at: media.file, moving: media.isTemporary, suffix: Attachment.Role.media.fileSuffix, fileExtension: ext)
        } catch {
            if media.isTemporary { try? FileManager.default.removeItem(at: media.file) }
            throw ItemError(.encodeFailed, "cannot write the media file: \(error)")
        }
        guard stored.bytes <= media.type.maxBytes else {
            throw ItemError(.internalError, "the \(ext) file is \(stored.bytes) bytes, over Apple's limit of \(media.type.maxBytes)")
        }
        context.media = nil
        context.attachments.append(
            Attachment(
                identifier: Attachment.Role.media.rawValue, role: .media, file: stored.name,
                url: context.options.baseURL.map { OutputStore.url(base: $0, file: stored.name) },
                typeHint: media.type.typeHint, fileExtension: ext, mimeType: media.type.mimeType, bytes: stored.bytes,
                sha256: stored.sha256, width: media.width, height: media.height, budget: media.budget,
                durationSeconds: media.durationSeconds, media: media.encoding,
                options: Attachment.Options(thumbnailHidden: false, thumbnailTime: context.kind == .video ? context.posterTime : nil)))
    }
}
