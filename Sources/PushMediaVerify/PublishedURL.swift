import PushMediaModel
import PushPayload

/// One URL a payload names for an ok item's attachment: what it must serve, and who downloads it.
public struct PublishedURL: Sendable, Equatable {
    /// The item's source, as in the manifest.
    public var source: String
    public var role: Attachment.Role
    /// The URL the payloads carry (`--base-url` joined with the file, else the manifest's).
    public var url: String
    /// The file the URL must serve, byte for byte.
    public var expected: ExpectedFile
    /// Who downloads it (never empty).
    public var rules: [DownloadRule]

    public init(source: String, role: Attachment.Role, url: String, expected: ExpectedFile, rules: [DownloadRule]) {
        self.source = source
        self.role = role
        self.url = url
        self.expected = expected
        self.rules = rules
    }

    /// How long the fetch may take: the longest cut-off of its rules (a file the last downloader
    /// has given up on is not read further).
    public var deadline: Double { rules.map(\.seconds).max() ?? 0 }
}

/// What the manifest says an attachment's file is.
public struct ExpectedFile: Sendable, Equatable {
    public var bytes: Int
    /// Lowercase hex.
    public var sha256: String
    public var mimeType: String
    /// Without the dot.
    public var fileExtension: String

    public init(bytes: Int, sha256: String, mimeType: String, fileExtension: String) {
        self.bytes = bytes
        self.sha256 = sha256
        self.mimeType = mimeType
        self.fileExtension = fileExtension
    }

    public init(_ attachment: Attachment) {
        self.init(bytes: attachment.bytes, sha256: attachment.sha256, mimeType: attachment.mimeType, fileExtension: attachment.fileExtension)
    }
}

/// The cut-offs a fetch is measured against, and how far redirects are followed.
public struct VerifyLimits: Sendable, Equatable {
    /// Seconds each iOS attachment may take; nil: the item's delivery target (its `delivery`
    /// in the manifest: the profile's seconds per notification).
    public var iOSSeconds: Double?
    /// Seconds FCM's Android SDK gives its image (5 in the SDK).
    public var fcmSeconds: Double
    /// Redirects followed at most: 16, the lower of the two SDKs' limits (CFNetwork 16,
    /// OkHttp, which Android's `HttpURLConnection` is built on, 20).
    public var maxRedirects: Int
    /// Seconds a browser gives a web push notification's image and icon, when the payloads
    /// address the web (`--platforms …,web`); nil: they do not.
    public var webSeconds: Double?

    /// The longest cut-off verify waits for any URL (seconds): `--ios-seconds` and
    /// `--fcm-seconds` at most, and a manifest's delivery target clamped to it.
    public static let longestSeconds = 600.0
    /// The shortest cut-off the flags take (seconds): below it no server on any network answers.
    public static let shortestSeconds = 0.1
    /// Chromium's cut-off for a notification's images (`kImageFetchTimeoutInMs = 90000` in
    /// `NotificationImageLoader.cpp`: "99.9% of all images were fetched successfully in 90 seconds").
    public static let chromiumWebSeconds = 90.0

    public init(iOSSeconds: Double? = nil, fcmSeconds: Double = 5, maxRedirects: Int = 16, webSeconds: Double? = nil) {
        self.iOSSeconds = iOSSeconds
        self.fcmSeconds = fcmSeconds
        self.maxRedirects = maxRedirects
        self.webSeconds = webSeconds
    }
}

/// Why the URLs of an item cannot be listed: verify cannot run (exit 2).
public enum PublishedURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An attachment has no URL in the manifest and no base URL was given.
    case noURL(source: String, role: Attachment.Role)
    /// The base URL is not an absolute https URL.
    case invalidBaseURL(String, reason: String)

    public var description: String {
        switch self {
        case .noURL(let source, let role):
            "item \(source): the \(role.rawValue) has no URL in the manifest (it was written without --base-url): give --base-url"
        case .invalidBaseURL(let url, let reason):
            "--base-url \(url) \(reason): give the absolute https URL the outputs are served from"
        }
    }
}

extension PublishedURL {
    /// Every URL a payload names for `item`, in attachment order: the iOS attachments, the movie
    /// or audio, the image FCM's Android SDK downloads. Empty for a failed item.
    public static func urls(of item: Item, builder: PayloadBuilder, limits: VerifyLimits) throws(PublishedURLError) -> [PublishedURL] {
        guard item.status == .ok else { return [] }
        var urls: [PublishedURL] = []
        for attachment in item.attachments {
            let rules = rules(for: attachment, of: item, limits: limits)
            guard !rules.isEmpty else { continue }
            let url: String
            do {
                url = try builder.url(of: attachment)
            } catch {
                switch error {
                case .missingURL: throw .noURL(source: item.source, role: attachment.role)
                case .invalidBaseURL(let base, let reason): throw .invalidBaseURL(base, reason: reason)
                // A manifest URL that is not https is checked, and refused, like any other.
                case .invalidURL(_, let manifestURL, _): url = manifestURL
                default: continue
                }
            }
            urls.append(PublishedURL(source: item.source, role: attachment.role, url: url, expected: ExpectedFile(attachment), rules: rules))
        }
        return urls
    }

    /// Who downloads `attachment` of `item`: one case per role, so that a new role cannot be
    /// published without saying whose rules it meets.
    public static func rules(for attachment: Attachment, of item: Item, limits: VerifyLimits) -> [DownloadRule] {
        // A delivery target past the longest wait (a hand-made manifest's budget at 1 bit/s) is
        // waited for that long, no longer: verify's run stays bounded whatever the manifest says.
        let iOS = DownloadRule.iOS(seconds: min(limits.iOSSeconds ?? item.deliveryTargetSeconds, VerifyLimits.longestSeconds))
        // With the web, the web push payloads name the square thumbnail (the icon) and the
        // Android image (the image) when they are still JPEGs or PNGs.
        let web = limits.webSeconds.flatMap { seconds in
            [AttachmentType.jpeg.typeHint, AttachmentType.png.typeHint].contains(attachment.typeHint) ? DownloadRule.web(seconds: seconds) : nil
        }
        switch attachment.role {
        case .thumbnail:
            // Every iOS payload carries the thumbnail; FCM's Android SDK never downloads it.
            return [iOS] + [web].compactMap { $0 }
        case .media:
            // Every iOS payload carries the movie or audio.
            return [iOS]
        case .expanded:
            // iOS payloads carry it when it is the item's primary attachment (no movie or audio).
            return PayloadBuilder.primary(of: item)?.role == .expanded ? [iOS] : []
        case .android:
            // FCM sends it as `android.notification.image`; no iOS payload carries it.
            return [fcmImage(limits)] + [web].compactMap { $0 }
        }
    }

    /// FCM's rule for the image its Android SDK downloads (the `android` attachment): at most 1 MiB, announced by `Content-Length`, within ``VerifyLimits/fcmSeconds``.
    public static func fcmImage(_ limits: VerifyLimits) -> DownloadRule {
        .fcmImage(seconds: limits.fcmSeconds)
    }
}

extension Item {
    /// The seconds the item's notification may take to download (its profile's delivery target,
    /// recorded as `delivery` in the manifest: budget × 8 ÷ link), to 0.01 s; the default
    /// profile's when the item has no `delivery`.
    public var deliveryTargetSeconds: Double {
        guard let delivery, delivery.budget > 0, delivery.linkBitsPerSecond > 0 else { return Profile.Delivery().seconds }
        return (Double(delivery.budget) * 8 / Double(delivery.linkBitsPerSecond) * 100).rounded() / 100
    }
}
