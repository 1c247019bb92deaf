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
    /// No item in the manifest has this source.
    case itemNotFound(source: String, known: [String])
    /// One object of the payload is larger than the vendor accepts for it (Braze counts
    /// `apple_push`, `android_push` and `web_push` separately).
    case objectOverLimit(format: PayloadFormat, object: String, bytes: Int, limit: Int, source: String)
    /// The format cannot address this platform (a usage error: `apns` is iOS only, `adobe` has no web).
    case unreachablePlatform(format: PayloadFormat, platform: PayloadPlatform)
    /// An option that only one format reads was given with another.
    case optionNotForFormat(option: String, format: PayloadFormat, only: PayloadFormat)

    /// How many bytes over the limit, for ``overLimit(format:bytes:limit:largestField:largestFieldBytes:)``.
    public var bytesOver: Int? {
        switch self {
        case .overLimit(_, let bytes, let limit, _, _), .objectOverLimit(_, _, let bytes, let limit, _): bytes - limit
        default: nil
        }
    }

    /// A stable, machine-readable name for the case (`--all` prints it as `error.code`).
    public var code: String {
        switch self {
        case .overLimit: "over_limit"
        case .objectOverLimit: "object_over_limit"
        case .missingURL: "missing_url"
        case .invalidURL: "invalid_url"
        case .invalidBaseURL: "invalid_base_url"
        case .missingAlertText: "missing_alert_text"
        case .unsupportedType: "unsupported_type"
        case .invalidClipRect: "invalid_clip_rect"
        case .invalidThumbnailTime: "invalid_thumbnail_time"
        case .itemNotFound: "item_not_found"
        case .unreachablePlatform: "unreachable_platform"
        case .optionNotForFormat: "option_not_for_format"
        }
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
        case .itemNotFound(let source, let known):
            "no item with source \"\(source)\" in the manifest"
                + (known.isEmpty
                    ? " (it has no items)"
                    : "; known: " + known.prefix(10).joined(separator: ", ")
                        + (known.count > 10 ? ", … (\(known.count) in all)" : ""))
        case .objectOverLimit(let format, let object, let bytes, let limit, let source):
            "\(format.rawValue) \(object) is \(bytes) bytes, \(bytes - limit) over its \(limit)-byte limit (\(source)). "
                + "Shorten the title, the body or the URLs (a shorter --base-url)."
        case .unreachablePlatform(let format, let platform):
            "\(format.rawValue) cannot address \(platform.rawValue): its platforms are "
                + format.platforms.map(\.rawValue).joined(separator: ", ")
        case .optionNotForFormat(let option, let format, let only):
            "\(option) is read only by \(only.rawValue) payloads, not by \(format.rawValue)"
        }
    }
}
