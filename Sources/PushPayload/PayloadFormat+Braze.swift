import PushMediaModel

extension PayloadBuilder {
    /// `braze`: the `messages` of a Braze `/messages/send` body (add `external_user_ids` or
    /// another audience before sending), with both platforms:
    ///
    /// - `apple_push`: `alert {title, body}`, and for the one asset iOS downloads `asset_url`,
    ///   `asset_file_type` (the file extension) and `mutable_content: true`. The device receives
    ///   the asset as `ab.att {url, type}`. One URL, no options.
    /// - `android_push`: `alert` and `title` (both required), `extra.appboy_image_url` (the
    ///   Android image: Braze scales a landscape big picture to exactly 2:1) and
    ///   `push_icon_image_url` (the square thumbnail, the large icon).
    static func braze(_ c: FormatContext) throws(PayloadError) -> Payload {
        var apple: [String: PayloadJSON] = ["alert": .object(c.text.object)]
        var android: [String: PayloadJSON] = [
            "alert": .string(c.text.body ?? c.text.title!), "title": .string(c.text.title ?? c.text.body!),
        ]
        var warnings: [String] = []
        if let image = c.android(.braze, limit: PayloadLimits.brazeAndroidImageBytes, key: "android_push.extra.appboy_image_url", warnings: &warnings)
        {
            android["extra"] = .object(["appboy_image_url": .string(image.url)])
        }
        if let icon = c.androidLargeIcon(limit: PayloadLimits.brazeAndroidImageBytes) { android["push_icon_image_url"] = .string(icon.url) }
        var carries: [PayloadAttachment] = []
        if let primary = c.primary {
            apple["asset_url"] = .string(primary.url)
            apple["asset_file_type"] = .string(brazeFileType(primary.fileExtension))
            apple["mutable_content"] = .bool(true)
            carries = [primary]
            warnings = droppedOptionsWarning(c, .braze) + warnings
        }
        let json: [String: PayloadJSON] = ["messages": .object(["apple_push": .object(apple), "android_push": .object(android)])]
        return c.payload(.braze, json, carries: carries, warnings: warnings)
    }

    /// Braze's `asset_file_type`: one of `aif`, `gif`, `jpg`, `m4a`, `mp3`, `mp4`, `png`, `wav`.
    static func brazeFileType(_ fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "jpeg": "jpg"
        case "aiff": "aif"
        case let other: other
        }
    }

    /// A warning when the selection had options the format cannot carry.
    static func droppedOptionsWarning(_ c: FormatContext, _ format: PayloadFormat) -> [String] {
        guard let first = c.selected.first else { return [] }
        var dropped: [String] = []
        if first.clippingRect != nil { dropped.append("clipping rect") }
        if first.thumbnailTime != nil { dropped.append("thumbnail time") }
        guard !dropped.isEmpty else { return [] }
        return ["\(format.rawValue) carries no attachment options: the \(dropped.joined(separator: " and ")) is not sent"]
    }
}
