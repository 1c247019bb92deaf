import PushMediaModel

extension PayloadBuilder {
    /// `airship`: an Airship push API body (without `audience`, which the campaign adds) whose
    /// iOS override carries `media_attachment`:
    ///
    /// - one attachment: `url` (a string) and `options {crop {x, y, width, height}, time, hidden}`;
    /// - several: `urls [{url, url_id}]` and `thumbnail_id`, the `url_id` of the attachment iOS
    ///   should use as the thumbnail; Airship's SDK hides every other one. Airship has one
    ///   `options` object for all attachments: the thumbnail's options are sent and apply to all.
    ///
    /// The device receives the object as `com.urbanairship.media_attachment`.
    ///
    /// Android: `device_types` names both platforms; the Android override's
    /// `style {type: big_picture, big_picture: url}` is the Android image (Airship's SDK also shows
    /// it, centre-cropped, as the collapsed large icon; the override has no large-icon URL).
    static func airship(_ c: FormatContext) throws(PayloadError) -> Payload {
        var notification: [String: PayloadJSON] = ["alert": .string(c.text.body ?? c.text.title!)]
        var ios: [String: PayloadJSON] = [:]
        if let title = c.text.title, c.text.body != nil { ios["title"] = .string(title) }
        var carries: [PayloadAttachment] = []
        if !c.selected.isEmpty {
            var media: [String: PayloadJSON] = [:]
            if c.selected.count == 1 {
                let a = c.selected[0]
                media["url"] = .string(a.url)
                carries = [a]
                if let options = airshipOptions(a, includeHidden: true) { media["options"] = options }
            } else {
                media["urls"] = .array(
                    c.selected.map { .object(["url": .string($0.url), "url_id": .string($0.role.rawValue)]) })
                let visible = c.selected.first { !$0.thumbnailHidden } ?? c.selected[0]
                media["thumbnail_id"] = .string(visible.role.rawValue)
                if let options = airshipOptions(visible, includeHidden: false) { media["options"] = options }
                carries = c.selected.map { a in
                    var shared = a
                    shared.thumbnailHidden = a.role != visible.role
                    shared.clippingRect = visible.clippingRect
                    shared.thumbnailTime = visible.thumbnailTime
                    return shared
                }
            }
            ios["mutable_content"] = .bool(true)
            ios["media_attachment"] = .object(media)
        }
        if !ios.isEmpty { notification["ios"] = .object(ios) }
        var android: [String: PayloadJSON] = [:]
        if let title = c.text.title, c.text.body != nil { android["title"] = .string(title) }
        var warnings = carries.compactMap(\.extensionWarning)
        if let image = c.android(.airship, limit: PayloadLimits.airshipAndroidImageBytes, key: "android.style.big_picture", warnings: &warnings) {
            android["style"] = .object(["type": .string("big_picture"), "big_picture": .string(image.url)])
        }
        if !android.isEmpty { notification["android"] = .object(android) }
        let json: [String: PayloadJSON] = [
            "device_types": .array([.string("ios"), .string("android")]), "notification": .object(notification),
        ]
        return c.payload(.airship, json, carries: carries, warnings: warnings)
    }

    private static func airshipOptions(_ a: PayloadAttachment, includeHidden: Bool) -> PayloadJSON? {
        var options: [String: PayloadJSON] = [:]
        if let r = a.clippingRect {
            options["crop"] = .object([
                "x": .double(r.x), "y": .double(r.y), "width": .double(r.width), "height": .double(r.height),
            ])
        }
        if let t = a.thumbnailTime { options["time"] = .double(t) }
        if includeHidden && a.thumbnailHidden { options["hidden"] = .bool(true) }
        return options.isEmpty ? nil : .object(options)
    }
}
