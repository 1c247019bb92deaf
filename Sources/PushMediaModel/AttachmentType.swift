/// Apple's `UNNotificationAttachment` types and their hard size limits: one table, used by the
/// encoders (never write more), the payload builder and the device-side planner.
public struct AttachmentType: Sendable, Equatable {
    public enum Category: String, Codable, Sendable, CaseIterable {
        case image
        case audio
        case movie
    }

    public var category: Category
    /// The UTI for `UNNotificationAttachmentOptionsTypeHintKey`.
    public var typeHint: String
    /// Extensions without the dot; the first is the one PushMedia writes.
    public var fileExtensions: [String]
    public var mimeType: String

    /// The most bytes iOS accepts for this type.
    public var maxBytes: Int { Self.maxBytes(for: category) }

    public static let megabyte = 1_000_000

    /// Apple's documented ceilings: images 10 MB, audio 5 MB, movies 50 MB.
    public static func maxBytes(for category: Category) -> Int {
        switch category {
        case .image: 10 * megabyte
        case .audio: 5 * megabyte
        case .movie: 50 * megabyte
        }
    }

    public static let jpeg = AttachmentType(
        category: .image, typeHint: "public.jpeg", fileExtensions: ["jpg", "jpeg"], mimeType: "image/jpeg")
    public static let png = AttachmentType(
        category: .image, typeHint: "public.png", fileExtensions: ["png"], mimeType: "image/png")
    public static let gif = AttachmentType(
        category: .image, typeHint: "com.compuserve.gif", fileExtensions: ["gif"], mimeType: "image/gif")
    public static let aiff = AttachmentType(
        category: .audio, typeHint: "public.aiff-audio", fileExtensions: ["aiff", "aif"], mimeType: "audio/aiff")
    public static let wav = AttachmentType(
        category: .audio, typeHint: "com.microsoft.waveform-audio", fileExtensions: ["wav"], mimeType: "audio/wav")
    public static let mp3 = AttachmentType(
        category: .audio, typeHint: "public.mp3", fileExtensions: ["mp3"], mimeType: "audio/mpeg")
    public static let m4a = AttachmentType(
        category: .audio, typeHint: "com.apple.m4a-audio", fileExtensions: ["m4a"], mimeType: "audio/mp4")
    public static let mpeg = AttachmentType(
        category: .movie, typeHint: "public.mpeg", fileExtensions: ["mpg", "mpeg"], mimeType: "video/mpeg")
    public static let mpeg2 = AttachmentType(
        category: .movie, typeHint: "public.mpeg-2-video", fileExtensions: ["m2v"], mimeType: "video/mpeg")
    public static let mp4 = AttachmentType(
        category: .movie, typeHint: "public.mpeg-4", fileExtensions: ["mp4", "m4v"], mimeType: "video/mp4")
    public static let avi = AttachmentType(
        category: .movie, typeHint: "public.avi", fileExtensions: ["avi"], mimeType: "video/x-msvideo")

    /// Every type iOS accepts as a notification attachment.
    public static let all: [AttachmentType] = [jpeg, png, gif, aiff, wav, mp3, m4a, mpeg, mpeg2, mp4, avi]

    /// The type for a type hint (UTI), if iOS accepts it.
    public static func forTypeHint(_ uti: String) -> AttachmentType? {
        all.first { $0.typeHint == uti }
    }

    /// The type for a file extension (case-insensitive, with or without the dot).
    public static func forExtension(_ ext: String) -> AttachmentType? {
        let e = ext.lowercased().trimmingPrefix(".")
        return all.first { $0.fileExtensions.contains(String(e)) }
    }
}
