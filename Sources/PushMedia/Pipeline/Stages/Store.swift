import Foundation
import PushMediaModel

extension Encoded {
    /// Writes the encoded variants into the output folder (content-addressed, atomic) and
    /// describes them as attachments with their notification options.
    func store(_ run: ItemRun) throws -> [Attachment] {
        let store = OutputStore(directory: run.options.outputDirectory, layout: run.options.layout, ledger: run.options.ledger)
        return try images.map { encoded in
            let type = encoded.format.attachmentType
            let stored: OutputStore.StoredFile
            do {
                stored = try store.write(encoded.data, suffix: encoded.role.fileSuffix, fileExtension: type.fileExtensions[0])
            } catch {
                throw ItemError.writing(encoded.role.rawValue, to: store.directory, error)
            }
            var options: Attachment.Options =
                switch encoded.role {
                case .expanded:
                    // Shown large when expanded; the clipping rect gives the collapsed square.
                    .init(thumbnailHidden: false, thumbnailClippingRect: clipRect)
                case .thumbnail, .media, .android:
                    .init(thumbnailHidden: false)
                }
            if encoded.format == .gif, let frame = representativeFrame {
                // ThumbnailTime is a frame number for animated images; frames may have been dropped.
                options.thumbnailTime = Double(frame / max(1, encoded.settings.frameStep))
            }
            var attachment = Attachment(
                identifier: encoded.role.rawValue, role: encoded.role, file: stored.name,
                url: run.options.baseURL.map { OutputStore.url(base: $0, file: stored.name) },
                typeHint: type.typeHint, fileExtension: type.fileExtensions[0], mimeType: type.mimeType,
                bytes: stored.bytes, sha256: stored.sha256, width: encoded.width, height: encoded.height,
                frames: encoded.frames, budget: encoded.budget, encoding: encoded.encoding, options: options)
            attachment.sourceRect = sourceRects[encoded.role]
            if encoded.role == .android { attachment.subjectInCentreSquare = androidSubjectInCentreSquare }
            return attachment
        }
    }
}

extension Attachment.Role {
    /// The part of output file names that says what the file is.
    var fileSuffix: String {
        switch self {
        case .thumbnail: "thumb"
        case .expanded: "expanded"
        case .media: "media"
        case .android: "android"
        }
    }
}
