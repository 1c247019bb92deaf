import PushMediaModel

extension PayloadBuilder {
    /// `braze`: the `messages` of a Braze `/messages/send` body (add `external_user_ids` or
    /// another audience before sending), one object per platform asked for:
    ///
    /// - `apple_push`: `alert {title, body}`, and for the one asset iOS downloads `asset_url`,
    ///   `asset_file_type` (the file extension) and `mutable_content: true`. The device receives
    ///   the asset as `ab.att {url, type}`. One URL, no options.
    /// - `android_push`: `alert` and `title` (both required), `extra.appboy_image_url` (the
    ///   Android image: Braze scales a landscape big picture to exactly 2:1) and
    ///   `push_icon_image_url` (the square thumbnail, the large icon).
    /// - `web_push`: `alert` and `title` (both required), `image_url` (the square thumbnail,
    ///   which Braze crops 1:1) and `large_image_url` (the Android image, Chrome on Windows and
    ///   Android), still JPEGs or PNGs.
    ///
    /// Braze counts each object on its own (``PayloadLimits/brazeApplePush`` and the others):
    /// the payload carries those limits in ``Payload/objectLimits``.
    static func braze(_ c: FormatContext) throws(PayloadError) -> Payload {
        var messages: [String: PayloadJSON] = [:]
        var warnings: [String] = []
        var carries: [PayloadAttachment] = []
        let limit = PayloadLimits.brazeAndroidImageBytes
        if c.has(.ios) {
            var apple: [String: PayloadJSON] = ["alert": .object(c.text.object)]
            if let primary = c.primary {
                apple["asset_url"] = .string(primary.url)
                apple["asset_file_type"] = .string(brazeFileType(primary.fileExtension))
                apple["mutable_content"] = .bool(true)
                carries = [primary]
                warnings = droppedOptionsWarning(c, .braze)
            }
            messages["apple_push"] = .object(apple)
        }
        if c.has(.android) {
            var android: [String: PayloadJSON] = ["alert": .string(c.alertString), "title": .string(c.titleString)]
            if let image = c.android(.braze, limit: limit, key: "android_push.extra.appboy_image_url", warnings: &warnings) {
                android["extra"] = .object(["appboy_image_url": .string(image.url)])
            }
            if let icon = c.androidLargeIcon(limit: limit) { android["push_icon_image_url"] = .string(icon.url) }
            messages["android_push"] = .object(android)
        }
        if c.has(.web) {
            var web: [String: PayloadJSON] = ["alert": .string(c.alertString), "title": .string(c.titleString)]
            if let icon = c.still(.icon, for: .web, .braze, limit: limit, key: "web_push.image_url", warnings: &warnings) {
                web["image_url"] = .string(icon.url)
            }
            if let image = c.still(.image, for: .web, .braze, limit: limit, key: "web_push.large_image_url", warnings: &warnings) {
                web["large_image_url"] = .string(image.url)
            }
            messages["web_push"] = .object(web)
        }
        var payload = c.payload(.braze, ["messages": .object(messages)], carries: carries, warnings: warnings)
        payload.objectLimits = brazeLimits(messages)
        return payload
    }

    /// Braze's limits on each message object, as its references state them.
    static func brazeLimits(_ messages: [String: PayloadJSON]) -> [ObjectLimit] {
        let push = PayloadFormat.braze.limitSource
        var limits: [ObjectLimit] = []
        if let apple = messages["apple_push"] {
            limits.append(
                ObjectLimit(
                    object: "apple_push", bytes: apple.compactByteCount, limit: PayloadLimits.brazeApplePush,
                    source: "Braze: apple_push's alert, extra and other optional parameters should not exceed 1912 bytes"))
        }
        if let android = messages["android_push"] {
            let alert = android["alert"]?.stringValue?.utf8.count ?? 0
            let extra = android["extra"]?.compactByteCount ?? 0
            limits.append(
                ObjectLimit(
                    object: "android_push alert + extra", bytes: alert + extra, limit: PayloadLimits.brazeAndroidAlertAndExtra,
                    source: "Braze: android_push's alert string and extra object should not exceed 4000 bytes"))
            limits.append(ObjectLimit(object: "android_push", bytes: android.compactByteCount, limit: PayloadLimits.brazePush, source: push))
        }
        if let web = messages["web_push"] {
            limits.append(ObjectLimit(object: "web_push", bytes: web.compactByteCount, limit: PayloadLimits.brazePush, source: push))
        }
        return limits
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
