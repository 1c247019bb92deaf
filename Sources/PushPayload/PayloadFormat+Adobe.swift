import PushMediaModel

extension PayloadBuilder {
    /// `adobe`: an FCM HTTP v1 `message` (add `token` or `topic`) carrying Adobe Journey
    /// Optimizer's keys on both platforms, for a sender that delivers to Adobe's SDKs itself:
    ///
    /// - `apns.payload`: the APNs payload iOS receives, `aps` plus `adb_media` (the one URL; the
    ///   device learns the type from the URL's extension). One URL, no options.
    /// - `android.data`: AJO's data message, `adb_title`, `adb_body`, `adb_image` (the Android
    ///   image, which Adobe's SDK also sets as the collapsed large icon) and `adb_large_icon`
    ///   (the square thumbnail, read by Adobe's push templates).
    static func adobe(_ c: FormatContext) throws(PayloadError) -> Payload {
        var apns: [String: PayloadJSON] = ["aps": c.aps]
        var carries: [PayloadAttachment] = []
        var warnings: [String] = []
        if let primary = c.primary {
            apns["adb_media"] = .string(primary.url)
            carries = [primary]
            warnings = droppedOptionsWarning(c, .adobe) + [primary.extensionWarning].compactMap { $0 }
        }
        var data: [String: PayloadJSON] = [:]
        if let title = c.text.title { data["adb_title"] = .string(title) }
        if let body = c.text.body { data["adb_body"] = .string(body) }
        if let image = c.android(.adobe, limit: PayloadLimits.adobeAndroidImageBytes, key: "android.data.adb_image", warnings: &warnings) {
            data["adb_image"] = .string(image.url)
        }
        if let icon = c.androidLargeIcon(limit: PayloadLimits.adobeAndroidImageBytes) { data["adb_large_icon"] = .string(icon.url) }
        let message: [String: PayloadJSON] = ["apns": .object(["payload": .object(apns)]), "android": .object(["data": .object(data)])]
        return c.payload(.adobe, ["message": .object(message)], carries: carries, warnings: warnings)
    }
}
