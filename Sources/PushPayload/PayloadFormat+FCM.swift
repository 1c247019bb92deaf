import PushMediaModel

extension PayloadBuilder {
    /// `fcm`: a Firebase Cloud Messaging HTTP v1 body `{"message": …}` (without `token` or
    /// `topic`, which the campaign adds):
    ///
    /// - `notification {title, body}`;
    /// - iOS: `apns.payload.aps.mutable-content: 1` and `apns.fcm_options.image`: the one URL iOS
    ///   downloads (the movie or audio for media, else the expanded image);
    /// - Android: `android.notification.image`, the item's Android image (`android` attachment),
    ///   which Firebase's Android SDK refuses over 1 MiB; left out, with a warning, when there is
    ///   none or it is larger;
    /// - web: `webpush.notification.image` (the Android image, a 2:1 still) and `.icon` (the
    ///   square thumbnail), which Firebase's JS SDK passes to `showNotification`.
    ///
    /// The device receives `fcm_options.image` at the top of the APNs payload.
    static func fcm(_ c: FormatContext) throws(PayloadError) -> Payload {
        var message: [String: PayloadJSON] = ["notification": .object(c.text.object)]
        var warnings: [String] = []
        var carries: [PayloadAttachment] = []
        if let primary = c.primary {
            message["apns"] = .object([
                "payload": .object(["aps": .object(["mutable-content": .int(1)])]),
                "fcm_options": .object(["image": .string(primary.url)]),
            ])
            warnings = droppedOptionsWarning(c, .fcm) + [primary.extensionWarning].compactMap { $0 }
            carries = [primary]
        }
        if c.has(.android),
            let image = c.android(.fcm, limit: PayloadLimits.androidImageBytes, key: "android.notification.image", warnings: &warnings)
        {
            message["android"] = .object(["notification": .object(["image": .string(image.url)])])
        }
        if c.has(.web) {
            var web: [String: PayloadJSON] = [:]
            if let image = c.still(.image, for: .web, .fcm, limit: .max, key: "webpush.notification.image", warnings: &warnings) {
                web["image"] = .string(image.url)
            }
            if let icon = c.still(.icon, for: .web, .fcm, limit: .max, key: "webpush.notification.icon", warnings: &warnings) {
                web["icon"] = .string(icon.url)
            }
            if !web.isEmpty { message["webpush"] = .object(["notification": .object(web)]) }
        }
        return c.payload(.fcm, ["message": .object(message)], carries: carries, warnings: warnings)
    }
}
