import PushMediaModel

extension PayloadBuilder {
    /// `adobe`: an FCM HTTP v1 `message` (add `token` or `topic`) carrying Adobe Journey
    /// Optimizer's keys, for a sender that delivers to Adobe's SDKs itself:
    ///
    /// - iOS, `apns.payload`: the APNs payload iOS receives, `aps` plus `adb_media` (the one URL;
    ///   the device learns the type from the URL's extension). One URL, no options.
    /// - Android, `android.data`: AJO's data message, `adb_title`, `adb_body` and `adb_image` (the
    ///   Android image). No `adb_large_icon`: only Adobe's push templates read it, and they need
    ///   `adb_template_type`, which would change the notification's layout.
    ///
    /// With ``PayloadBuilder/animatedAndroidImage`` an animated GIF item's GIF is `adb_image`
    /// (Adobe's Messaging SDK 3.3.2 or newer animates it on Android 14+ when the URL ends in `.gif`).
    static func adobe(_ c: FormatContext) throws(PayloadError) -> Payload {
        var message: [String: PayloadJSON] = [:]
        var carries: [PayloadAttachment] = []
        var warnings: [String] = []
        if c.has(.ios) {
            var apns: [String: PayloadJSON] = ["aps": c.aps]
            if let primary = c.primary {
                apns["adb_media"] = .string(primary.url)
                carries = [primary]
                warnings = droppedOptionsWarning(c, .adobe) + [primary.extensionWarning].compactMap { $0 }
            }
            message["apns"] = .object(["payload": .object(apns)])
        }
        if c.has(.android) {
            var data: [String: PayloadJSON] = [:]
            if let title = c.text.title { data["adb_title"] = .string(title) }
            if let body = c.text.body { data["adb_body"] = .string(body) }
            if let gif = animatedImage(c, warnings: &warnings) {
                data["adb_image"] = .string(gif.url)
            } else if let image = c.android(
                .adobe, limit: PayloadLimits.adobeAndroidImageBytes, key: "android.data.adb_image", warnings: &warnings)
            {
                data["adb_image"] = .string(image.url)
            }
            message["android"] = .object(["data": .object(data)])
        }
        return c.payload(.adobe, ["message": .object(message)], carries: carries, warnings: warnings)
    }

    /// The item's GIF for `adb_image` when it was asked for and Adobe's SDK will animate it; else
    /// nil, with a warning saying why the still is sent instead.
    private static func animatedImage(_ c: FormatContext, warnings: inout [String]) -> PayloadAttachment? {
        guard c.item.status == .ok, c.askedForAnimation else { return nil }
        guard let gif = c.animatedAndroidImage else {
            warnings.append("item \(c.item.source) has no animated GIF: adb_image is the still Android image")
            return nil
        }
        guard gif.urlShowsExtension else {
            warnings.append("the GIF URL of \(c.item.source) does not end in .gif, which Adobe's SDK needs to animate it: adb_image is the still")
            return nil
        }
        guard gif.bytes <= PayloadLimits.adobeAnimatedImageBytes else {
            warnings.append(
                "the GIF of \(c.item.source) is \(gif.bytes) bytes, over Adobe's advised \(PayloadLimits.adobeAnimatedImageBytes): adb_image is the still"
            )
            return nil
        }
        warnings.append(
            "adb_image is the animated GIF (\(gif.bytes) bytes): Adobe's SDK animates it on Android 14+ (Messaging 3.3.2+); the device downloads it before the notification shows, so keep it small"
        )
        return gif
    }
}
