import Foundation
import PushMediaModel

/// The senders PushMedia writes payloads for. Documented with examples in `docs/payload.md`.
public enum PayloadFormat: String, CaseIterable, Sendable, Codable {
    /// PushMedia's own APNs payload: `aps` plus the compact, versioned `pm` attachment list.
    case apns
    /// A Braze `/messages/send` body: `apple_push` with the iOS asset, `android_push` with the
    /// Android image and large icon, `web_push` with the web image and icon.
    case braze
    /// An FCM HTTP v1 message with Adobe Journey Optimizer's keys: `adb_media` in the APNs
    /// payload, `adb_image` in the Android data.
    case adobe
    /// An Airship push API body whose iOS override carries `media_attachment`.
    case airship
    /// A OneSignal create-notification API body with `ios_attachments {id: url}`.
    case onesignal
    /// A Firebase Cloud Messaging HTTP v1 `message` with `apns.fcm_options.image` and
    /// `android.notification.image`.
    case fcm

    /// The most bytes the compact payload may have. Braze's limits are per message object
    /// (``PayloadLimits/brazeApplePush`` and the others), and this is the most a whole push may have.
    public var byteLimit: Int {
        switch self {
        case .apns, .airship: PayloadLimits.apns
        case .braze: PayloadLimits.brazePush
        case .onesignal: PayloadLimits.oneSignal
        case .fcm, .adobe: PayloadLimits.fcm
        }
    }

    /// Where ``byteLimit`` comes from, in words (also in `docs/payload.md`).
    public var limitSource: String {
        switch self {
        case .apns:
            "APNs: a remote notification payload is at most 4096 bytes"
        case .braze:
            "Braze: a push payload is at most 3,807 bytes, the rest of APNs' and FCM's 4096 being Braze's own keys"
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

    /// The platforms this format can address, in the order `--platforms` lists them.
    public var platforms: [PayloadPlatform] {
        switch self {
        case .apns: [.ios]
        case .adobe: [.ios, .android]
        case .braze, .fcm: [.ios, .android, .web]
        case .airship: [.ios, .android, .web, .amazon]
        case .onesignal: [.ios, .android, .web, .huawei, .amazon]
        }
    }

    /// The platforms a payload addresses when none are asked for: iOS and Android where the
    /// format reaches them (iOS alone for `apns`).
    public var defaultPlatforms: [PayloadPlatform] { [.ios, .android].filter(platforms.contains) }

    /// The mode a payload uses when none is asked for. Airship's and OneSignal's iOS SDKs do not
    /// keep the order of several attachments (Airship adds them as their downloads finish,
    /// OneSignal walks an unordered dictionary), so one attachment is their default; elsewhere
    /// `multi`, which only `apns` can carry in order.
    public var defaultMode: PayloadMode {
        switch self {
        case .airship, .onesignal: .single
        case .apns, .braze, .adobe, .fcm: .multi
        }
    }
}

/// The devices a payload addresses (`--platforms`).
public enum PayloadPlatform: String, CaseIterable, Sendable, Codable {
    /// iPhone and iPad: the attachments a Notification Service Extension downloads.
    case ios
    /// Android phones with Google's services (FCM): the big picture and large icon.
    case android
    /// Web push subscribers: Chrome's image (2:1, the Android image) and icon (the thumbnail).
    case web
    /// Huawei devices reached through Huawei's push service.
    case huawei
    /// Amazon Fire OS devices reached through Amazon Device Messaging.
    case amazon

    /// Parses a comma-separated list such as `ios,android,web` (repeats dropped); a failure names
    /// the first entry that is no platform.
    public static func list(_ text: String) -> Result<[PayloadPlatform], UnknownPlatform> {
        var platforms: [PayloadPlatform] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let platform = PayloadPlatform(rawValue: name) else { return .failure(UnknownPlatform(name: name)) }
            if !platforms.contains(platform) { platforms.append(platform) }
        }
        return .success(platforms)
    }

    /// An entry of a `--platforms` list that names no platform.
    public struct UnknownPlatform: Error, Sendable, Equatable {
        public var name: String

        public init(name: String) { self.name = name }
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
    /// Braze: the `apple_push` object's alert, extra and optional parameters, at most 1,912 bytes
    /// (Apple push object reference).
    public static let brazeApplePush = 1912
    /// Braze: the `android_push` object's `alert` and `extra`, at most 4,000 bytes (Android push
    /// object reference).
    public static let brazeAndroidAlertAndExtra = 4000
    /// Braze: a whole push, at most 3,807 bytes ("Reducing push notification payload size").
    public static let brazePush = 3807
    /// OneSignal: 4096 bytes in all, of which it asks senders to keep under 3500.
    public static let oneSignal = 3500
    /// FCM: 4000 bytes for a message's notification/data payload.
    public static let fcm = 4000
    /// FCM / Android: Firebase's Android SDK refuses a notification image over 1 MiB
    /// (`MAX_IMAGE_SIZE_BYTES = 1024 * 1024`), the same limit the profile's Android budget is held to.
    public static let androidImageBytes = Profile.Android.hardLimit
    /// Airship: an Android image is at most 2 MB (media guidelines).
    public static let airshipAndroidImageBytes = 2_000_000
    /// Braze: a push image is at most 5 MB (message and image formats); held for Android and web.
    public static let brazeAndroidImageBytes = 5_000_000
    /// Adobe: `adb_image` under 1 MB (push templates reference).
    public static let adobeAndroidImageBytes = 1_000_000
    /// Adobe: rich media (an animated GIF as `adb_image`) at most 5 MB (rich media push
    /// notifications overview: "Recommended maximum image size: 5MB").
    public static let adobeAnimatedImageBytes = 5_000_000
    /// OneSignal documents no limit for an image by URL; its SDK downloads it whole. Firebase's
    /// 1 MiB is kept, so the same image works with every vendor.
    public static let oneSignalAndroidImageBytes = Profile.Android.hardLimit
}
