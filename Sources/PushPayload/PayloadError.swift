import PushMediaModel

/// Why a payload could not be built. Every case says what to change; none is ever "fixed" by
/// silently truncating or dropping content.
public enum PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The compact payload is larger than the sender accepts.
    case overLimit(format: PayloadFormat, bytes: Int, limit: Int, largestField: String, largestFieldBytes: Int)
    /// An attachment has no URL and no `--base-url` was given.
    case missingURL(role: Attachment.Role, file: String)
    /// An attachment URL is not an absolute `https` URL.
    case invalidURL(role: Attachment.Role, url: String, reason: String)
    /// `--base-url` is not an absolute `https` URL.
    case invalidBaseURL(String, reason: String)
    /// Neither a title nor a body: iOS runs the Notification Service Extension only for
    /// notifications that show an alert.
    case missingAlertText
    /// The attachment's type hint is not one iOS accepts as a notification attachment.
    case unsupportedType(role: Attachment.Role, typeHint: String)
    /// The manifest's clipping rect is not a unit rect (values in 0…1, inside the unit square).
    case invalidClipRect(role: Attachment.Role, UnitRect)
    /// The manifest's thumbnail time is negative, NaN or infinite.
    case invalidThumbnailTime(role: Attachment.Role, Double)
    /// FCM's `android.notification.image` would be larger than Android's 1 MB.
    case androidImageTooLarge(bytes: Int, limit: Int)
    /// No item in the manifest has this source.
    case itemNotFound(source: String, known: [String])

    /// How many bytes over the limit, for ``overLimit(format:bytes:limit:largestField:largestFieldBytes:)``.
    public var bytesOver: Int? {
        if case .overLimit(_, let bytes, let limit, _, _) = self { return bytes - limit }
        return nil
    }

    public var description: String {
        switch self {
        case .overLimit(let format, let bytes, let limit, let field, let fieldBytes):
            "\(format.rawValue) payload is \(bytes) bytes, \(bytes - limit) over the \(limit)-byte limit "
                + "(\(format.limitSource)); the largest field is \(field) (\(fieldBytes) bytes). "
                + "Shorten the URLs (a shorter --base-url), the title or the body, or use --mode single."
        case .missingURL(let role, let file):
            "the \(role.rawValue) attachment (\(file)) has no URL in the manifest: pass --base-url https://…"
        case .invalidURL(let role, let url, let reason):
            "the \(role.rawValue) attachment URL \"\(url)\" \(reason): iOS downloads attachments only from absolute https URLs"
        case .invalidBaseURL(let url, let reason):
            "--base-url \"\(url)\" \(reason): it must be an absolute https URL such as https://cdn.example.com/push/"
        case .missingAlertText:
            "give --title or --body: iOS runs the Notification Service Extension (which attaches the media) only for notifications that show an alert"
        case .unsupportedType(let role, let typeHint):
            "the \(role.rawValue) attachment has type \(typeHint), which iOS does not accept as a notification attachment"
        case .invalidClipRect(let role, let rect):
            "the \(role.rawValue) attachment's clipping rect {X: \(rect.x), Y: \(rect.y), Width: \(rect.width), Height: \(rect.height)} is not inside the unit square"
        case .invalidThumbnailTime(let role, let time):
            "the \(role.rawValue) attachment's thumbnail time \(time) is not a finite, non-negative number"
        case .androidImageTooLarge(let bytes, let limit):
            "the expanded image is \(bytes) bytes; FCM's android.notification.image must be at most \(limit) bytes (1 MB): lower expanded.maxWidth or jpeg.quality in the profile"
        case .itemNotFound(let source, let known):
            "no item with source \"\(source)\" in the manifest"
                + (known.isEmpty
                    ? " (it has no items)"
                    : "; known: " + known.prefix(10).joined(separator: ", ")
                        + (known.count > 10 ? ", … (\(known.count) in all)" : ""))
        }
    }
}
