import PushMediaModel

extension PayloadBuilder {
    /// `onesignal`: a OneSignal create-notification body (without `app_id` and targeting, which
    /// the campaign adds). OneSignal carries no attachment options.
    ///
    /// - iOS: `ios_attachments {id: url}` with the roles as ids; the device receives the
    ///   dictionary as `att`. OneSignal's SDK walks it as an unordered dictionary, so `single`
    ///   (one attachment) is the default.
    /// - Android: `big_picture` is the Android image (the expanded view) and `large_icon` the
    ///   square thumbnail: OneSignal's SDK shows `large_icon` collapsed, not a crop of the big picture.
    /// - Huawei and Amazon: the same two as `huawei_big_picture` / `huawei_large_icon` and
    ///   `adm_big_picture` / `adm_large_icon`.
    /// - web: `chrome_web_image` (the Android image), `chrome_web_icon` and `firefox_icon` (the
    ///   square thumbnail).
    ///
    /// Huawei, Amazon and web keys name only still JPEGs and PNGs.
    static func oneSignal(_ c: FormatContext) throws(PayloadError) -> Payload {
        var json: [String: PayloadJSON] = ["contents": .object(["en": .string(c.alertString)])]
        if let title = c.text.title, c.text.body != nil { json["headings"] = .object(["en": .string(title)]) }
        var androidWarnings: [String] = []
        let limit = PayloadLimits.oneSignalAndroidImageBytes
        if c.has(.android) {
            if let image = c.android(.onesignal, limit: limit, key: "big_picture", warnings: &androidWarnings) {
                json["big_picture"] = .string(image.url)
            }
            if let icon = c.androidLargeIcon(limit: limit) { json["large_icon"] = .string(icon.url) }
        }
        let stills: [(PayloadPlatform, FormatContext.StillRole, [String])] = [
            (.huawei, .image, ["huawei_big_picture"]), (.huawei, .icon, ["huawei_large_icon"]),
            (.amazon, .image, ["adm_big_picture"]), (.amazon, .icon, ["adm_large_icon"]),
            (.web, .image, ["chrome_web_image"]), (.web, .icon, ["chrome_web_icon", "firefox_icon"]),
        ]
        for (platform, role, keys) in stills where c.has(platform) {
            let key = keys.joined(separator: ", ")
            if let still = c.still(role, for: platform, .onesignal, limit: limit, key: key, warnings: &androidWarnings) {
                for key in keys { json[key] = .string(still.url) }
            }
        }
        guard !c.selected.isEmpty else { return c.payload(.onesignal, json, carries: [], warnings: androidWarnings) }
        var attachments: [String: PayloadJSON] = [:]
        for a in c.selected { attachments[a.role.rawValue] = .string(a.url) }
        json["ios_attachments"] = .object(attachments)
        json["mutable_content"] = .bool(true)
        let carries = c.selected.map(\.withoutOptions)
        var warnings = carries.compactMap(\.extensionWarning) + androidWarnings
        if c.selected.count == 1 { warnings += droppedOptionsWarning(c, .onesignal) }
        return c.payload(.onesignal, json, carries: carries, warnings: warnings)
    }
}
