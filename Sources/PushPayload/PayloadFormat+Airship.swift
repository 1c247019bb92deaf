import PushMediaModel

extension PayloadBuilder {
    /// `airship`: an Airship push API body (without `audience`, which the campaign adds).
    /// `device_types` lists the platforms asked for (`ios`, `android`, `web`, `amazon`).
    ///
    /// iOS: the override carries `media_attachment`, which the device receives as
    /// `com.urbanairship.media_attachment`:
    ///
    /// - one attachment (`single`, the default): `url` (a string) and
    ///   `options {crop {x, y, width, height}, time, hidden}`;
    /// - several (`multi`, opt-in): `urls [{url, url_id}]` and `thumbnail_id`, the `url_id` of the
    ///   attachment iOS should use as the thumbnail. Airship has one `options` object for all
    ///   attachments: the thumbnail's options are sent and apply to all. Airship's SDK adds the
    ///   attachments as their downloads finish, so their order is not kept (a warning says so).
    ///
    /// Android and Amazon: the override's `style {type: big_picture, big_picture: url}` is the
    /// Android image (Airship's SDK also shows it, centre-cropped, as the collapsed large icon;
    /// the override has no large-icon URL). Amazon gets only a still JPEG or PNG.
    ///
    /// Web: the override's `icon {url}` (the square thumbnail) and `image {url}` (the Android
    /// image), still JPEGs or PNGs.
    static func airship(_ c: FormatContext) throws(PayloadError) -> Payload {
        var notification: [String: PayloadJSON] = ["alert": .string(c.alertString)]
        var ios: [String: PayloadJSON] = [:]
        let title: PayloadJSON? = c.text.body != nil ? c.text.title.map(PayloadJSON.string) : nil
        if c.has(.ios), let title { ios["title"] = title }
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
        var warnings = carries.compactMap(\.extensionWarning)
        let limit = PayloadLimits.airshipAndroidImageBytes
        if c.has(.android) {
            var android: [String: PayloadJSON] = [:]
            if let title { android["title"] = title }
            if let image = c.android(.airship, limit: limit, key: "android.style.big_picture", warnings: &warnings) {
                android["style"] = bigPicture(image)
            }
            if !android.isEmpty { notification["android"] = .object(android) }
        }
        if c.has(.amazon) {
            var amazon: [String: PayloadJSON] = [:]
            if let title { amazon["title"] = title }
            if let image = c.still(.image, for: .amazon, .airship, limit: limit, key: "amazon.style.big_picture", warnings: &warnings) {
                amazon["style"] = bigPicture(image)
            }
            if !amazon.isEmpty { notification["amazon"] = .object(amazon) }
        }
        if c.has(.web) {
            var web: [String: PayloadJSON] = [:]
            if let title { web["title"] = title }
            if let icon = c.still(.icon, for: .web, .airship, limit: .max, key: "web.icon", warnings: &warnings) {
                web["icon"] = .object(["url": .string(icon.url)])
            }
            if let image = c.still(.image, for: .web, .airship, limit: .max, key: "web.image", warnings: &warnings) {
                web["image"] = .object(["url": .string(image.url)])
            }
            if !web.isEmpty { notification["web"] = .object(web) }
        }
        let deviceTypes = PayloadFormat.airship.platforms.filter(c.has).map { PayloadJSON.string($0.rawValue) }
        let json: [String: PayloadJSON] = ["device_types": .array(deviceTypes), "notification": .object(notification)]
        return c.payload(.airship, json, carries: carries, warnings: warnings)
    }

    private static func bigPicture(_ image: PayloadAttachment) -> PayloadJSON {
        .object(["type": .string("big_picture"), "big_picture": .string(image.url)])
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
