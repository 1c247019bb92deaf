import PushMediaModel

/// The senders PushMedia writes payloads for. Documented with examples in `docs/payload.md`.
public enum PayloadFormat: String, CaseIterable, Sendable, Codable {
    /// PushMedia's own APNs payload: `aps` plus the compact, versioned `pm` attachment list.
    case apns
    /// An APNs payload with Braze's `ab.att {url, type}`.
    case braze
    /// An APNs payload with Adobe Journey Optimizer's `adb_media` URL.
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
        case .apns, .braze, .adobe, .airship: PayloadLimits.apns
        case .onesignal: PayloadLimits.oneSignal
        case .fcm: PayloadLimits.fcm
        }
    }

    /// Where ``byteLimit`` comes from, in words (also in `docs/payload.md`).
    public var limitSource: String {
        switch self {
        case .apns, .braze, .adobe:
            "APNs: a remote notification payload is at most 4096 bytes"
        case .airship:
            "APNs: Airship delivers media_attachment inside the APNs payload, at most 4096 bytes"
        case .onesignal:
            "OneSignal: payloads are limited to 4096 bytes; keep them under 3500 to leave room for its own keys"
        case .fcm:
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
    /// FCM / Android: a notification image is at most 1 MB.
    public static let androidImageBytes = 1_000_000
}
