import PushMediaModel

extension PayloadBuilder {
    /// `fcm`: a Firebase Cloud Messaging HTTP v1 body `{"message": …}` (without `token` or
    /// `topic`, which the campaign adds):
    ///
    /// - `notification {title, body}`;
    /// - `apns.payload.aps.mutable-content: 1` and `apns.fcm_options.image`: the one URL iOS
    ///   downloads (the movie or audio for media, else the expanded image);
    /// - `android.notification.image`: the item's Android image (`android` attachment), which
    ///   Firebase's Android SDK refuses over 1 MiB; left out, with a warning, when there is none
    ///   or it is larger.
    ///
    /// The device receives `fcm_options.image` at the top of the APNs payload.
    static func fcm(_ c: FormatContext) throws(PayloadError) -> Payload {
        var message: [String: PayloadJSON] = ["notification": .object(c.text.object)]
        guard let primary = c.primary else {
            return c.payload(.fcm, ["message": .object(message)], carries: [])
        }
        message["apns"] = .object([
            "payload": .object(["aps": .object(["mutable-content": .int(1)])]),
            "fcm_options": .object(["image": .string(primary.url)]),
        ])
        var warnings = droppedOptionsWarning(c, .fcm) + [primary.extensionWarning].compactMap { $0 }
        if let image = c.android(.fcm, limit: PayloadLimits.androidImageBytes, key: "android.notification.image", warnings: &warnings) {
            message["android"] = .object(["notification": .object(["image": .string(image.url)])])
        }
        return c.payload(.fcm, ["message": .object(message)], carries: [primary], warnings: warnings)
    }
}
