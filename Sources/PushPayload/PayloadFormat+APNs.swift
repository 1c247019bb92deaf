import PushMediaModel

/// The keys of PushMedia's own attachment list, `pm`, version 1 (see `docs/payload.md`).
///
/// ```json
/// {"aps": {"alert": {"title": "…", "body": "…"}, "mutable-content": 1},
///  "pm": {"v": 1, "a": [{"u": "https://…/e.jpg", "t": "public.jpeg", "h": 1},
///                       {"u": "https://…/t.jpg", "t": "public.jpeg"}]}}
/// ```
public enum PushMediaKeys {
    /// Top-level key of the attachment list.
    public static let root = "pm"
    /// Shape version (an integer). Readers refuse versions they do not know.
    public static let version = "v"
    /// The ordered attachments (an array of objects).
    public static let attachments = "a"
    /// Absolute https URL (string, required).
    public static let url = "u"
    /// Type hint, a UTI (string).
    public static let typeHint = "t"
    /// Thumbnail hidden: `1` (or `true`) to hide; absent means shown.
    public static let thumbnailHidden = "h"
    /// Clipping rect `[x, y, width, height]` in unit coordinates.
    public static let clippingRect = "c"
    /// Thumbnail time: seconds for movies, a frame number for animated images.
    public static let thumbnailTime = "s"
    /// The version this PushMedia writes.
    public static let currentVersion = 1
}

extension PayloadBuilder {
    /// `apns`: `aps` with the alert and `mutable-content: 1`, plus every selected attachment in
    /// `pm` with all its options. Text-only (no `pm`, no `mutable-content`) for failed items.
    static func apns(_ c: FormatContext) throws(PayloadError) -> Payload {
        var json: [String: PayloadJSON] = ["aps": c.aps]
        if !c.selected.isEmpty {
            json[PushMediaKeys.root] = .object([
                PushMediaKeys.version: .int(PushMediaKeys.currentVersion),
                PushMediaKeys.attachments: .array(c.selected.map(pmEntry)),
            ])
        }
        return c.payload(.apns, json, carries: c.selected)
    }

    static func pmEntry(_ a: PayloadAttachment) -> PayloadJSON {
        var entry: [String: PayloadJSON] = [
            PushMediaKeys.url: .string(a.url),
            PushMediaKeys.typeHint: .string(a.typeHint),
        ]
        if a.thumbnailHidden { entry[PushMediaKeys.thumbnailHidden] = .int(1) }
        if let r = a.clippingRect {
            entry[PushMediaKeys.clippingRect] = .array([r.x, r.y, r.width, r.height].map(PayloadJSON.double))
        }
        if let t = a.thumbnailTime { entry[PushMediaKeys.thumbnailTime] = .double(t) }
        return .object(entry)
    }
}
