import PushMediaModel

/// The senders PushMedia writes payloads for. Documented with examples in `docs/payload.md`.
public enum PayloadFormat: String, CaseIterable, Sendable, Codable {
    /// PushMedia's own APNs payload: `aps` plus the compact, versioned `pm` attachment list.
    case apns
    /// A Braze `/messages/send` body: `apple_push` with the iOS asset, `android_push` with the
    /// Android image and large icon.
    case braze
    /// An FCM HTTP v1 message with Adobe Journey Optimizer's keys: `adb_media` in the APNs
    /// payload, `adb_image` and `adb_large_icon` in the Android data.
    case adobe
    /// An Airship push API body whose iOS override carries `media_attachment`.
    case airship
    /// A OneSignal create-notification API body with `ios_attachments {id: url}`.
    case onesignal
    /// A Firebase Cloud Messaging HTTP v1 `message` with `apns.fcm_options.image` and
    /// `android.notification.image`.
    case fcm

    /// The most bytes the compact payload may have.
    public var byteLimit: Int {
        switch self {
        case .apns, .braze, .airship: PayloadLimits.apns
        case .onesignal: PayloadLimits.oneSignal
        case .fcm, .adobe: PayloadLimits.fcm
        }
    }

    /// Where ``byteLimit`` comes from, in words (also in `docs/payload.md`).
    public var limitSource: String {
        switch self {
        case .apns, .braze:
            "APNs: a remote notification payload is at most 4096 bytes"
        case .airship:
            "APNs: Airship delivers media_attachment inside the APNs payload, at most 4096 bytes"
        case .onesignal:
            "OneSignal: payloads are limited to 4096 bytes; keep them under 3500 to leave room for its own keys"
        case .fcm, .adobe:
            "FCM: notification and data payloads are limited to 4000 bytes"
        }
    }

    /// True when the format can carry several attachments, each with its own URL.
    public var carriesSeveralAttachments: Bool {
        switch self {
        case .apns, .airship, .onesignal: true
        case .braze, .adobe, .fcm: false
        }
    }
}

/// Which attachments a payload sends.
public enum PayloadMode: String, CaseIterable, Sendable, Codable {
    /// The expanded image (or the movie / audio) with `ThumbnailHidden`, then the square
    /// thumbnail: iOS shows the first in the expanded view and the first visible one as the
    /// thumbnail (the "two attachments" technique). Two downloads.
    case multi
    /// The expanded image (or the movie / audio) alone, with its clipping rect so iOS crops the
    /// square thumbnail from it. One download.
    case single
}

/// The byte limits PushPayload enforces, with their sources in `docs/payload.md`.
public enum PayloadLimits {
    /// APNs: 4096 bytes for a regular remote notification.
    public static let apns = 4096
    /// OneSignal: 4096 bytes in all, of which it asks senders to keep under 3500.
    public static let oneSignal = 3500
    /// FCM: 4000 bytes for a message's notification/data payload.
    public static let fcm = 4000
    /// FCM / Android: Firebase's Android SDK refuses a notification image over 1 MiB
    /// (`MAX_IMAGE_SIZE_BYTES = 1024 * 1024`), the same limit the profile's Android budget is held to.
    public static let androidImageBytes = Profile.Android.hardLimit
    /// Airship: an Android image is at most 2 MB (media guidelines).
    public static let airshipAndroidImageBytes = 2_000_000
    /// Braze: an Android push image is at most 5 MB (message and image formats).
    public static let brazeAndroidImageBytes = 5_000_000
    /// Adobe: `adb_image` and `adb_large_icon` under 1 MB (push templates reference).
    public static let adobeAndroidImageBytes = 1_000_000
    /// OneSignal documents no limit for an image by URL; its SDK downloads it whole. Firebase's
    /// 1 MiB is kept, so the same image works with every vendor.
    public static let oneSignalAndroidImageBytes = Profile.Android.hardLimit
}
