import Foundation
import PushMediaModel

/// The formats PushMedia writes images in.
public enum OutputImageFormat: String, Sendable {
    case jpeg, png

    public var attachmentType: AttachmentType {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        }
    }
}

/// An encoded variant, ready to store.
struct EncodedImage {
    var role: Attachment.Role
    var data: Data
    var format: OutputImageFormat
    var width: Int
    var height: Int
}

/// The one place images become bytes. Every format goes through ``encode(_:as:profile:)``, so
/// byte budgets can be added here once for all of them. Outputs never carry metadata (EXIF, GPS,
/// XMP, ICC): the savers run with `strip`.
enum ImageEncoder {
    /// JPEG for opaque images, PNG when the alpha channel is real.
    static func format(keepsAlpha: Bool) -> OutputImageFormat { keepsAlpha ? .png : .jpeg }

    static func encode(_ image: Vips.Image, as format: OutputImageFormat, profile: Profile) throws -> Data {
        let data: Data
        switch format {
        case .jpeg:
            data = try image.jpegData(quality: profile.jpeg.quality, optimizeCoding: true)
        case .png:
            data = try image.pngData(compression: profile.png.compression)
        }
        let limit = format.attachmentType.maxBytes
        guard data.count <= limit else {
            throw ItemError(
                .overBudget, "\(format.rawValue) output is \(data.count) bytes, over iOS's limit of \(limit) bytes")
        }
        return data
    }
}
