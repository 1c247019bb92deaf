import PushMediaModel

/// Who downloads a published URL, and what makes that downloader drop it.
public enum DownloadRule: Sendable, Hashable {
    /// iOS's notification service extension downloads every attachment of the notification at
    /// once, so the set has arrived when its slowest file has: each file must arrive within the
    /// profile's delivery target for the notification (`seconds`).
    case iOS(seconds: Double)
    /// FCM's Android SDK (`ImageDownload`): one image, refused from a `Content-Length` over
    /// ``fcmImageLimit``, read to at most that many bytes, dropped when it has not arrived within
    /// `seconds` (5 s in the SDK).
    case fcmImage(seconds: Double)
    /// A browser showing a web push notification (Chromium's `NotificationImageLoader`): its
    /// image and icon, dropped when they have not arrived within `seconds` (90 s in Chromium).
    case web(seconds: Double)

    /// The most bytes FCM's Android SDK reads of an image (1 MiB).
    public static let fcmImageLimit = Profile.Delivery.fcmImageLimit

    /// The seconds the downloader gives the file.
    public var seconds: Double {
        switch self {
        case .iOS(let seconds), .fcmImage(let seconds), .web(let seconds): seconds
        }
    }

    /// `ios`, `fcm` or `web`, as the JSON output names the rules.
    public var name: String {
        switch self {
        case .iOS: "ios"
        case .fcmImage: "fcm"
        case .web: "web"
        }
    }
}
