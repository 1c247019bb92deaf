import Foundation

/// Which payload shape the attachments were read from.
public enum PayloadSource: String, Sendable, CaseIterable {
    /// PushMedia's own `pm` list (`pushmedia payload --format apns`).
    case pushMedia
    /// Braze's `ab.att {url, type}`.
    case braze
    /// Adobe Journey Optimizer's `adb_media`.
    case adobe
    /// Airship's `com.urbanairship.media_attachment` (or `media_attachment` in an API body).
    case airship
    /// OneSignal's `att` (or `ios_attachments` in an API body).
    case oneSignal
    /// Firebase Cloud Messaging's `fcm_options.image`.
    case fcm
}

/// Why something in the payload was not planned. Never fatal: the notification is still shown.
public struct PlanProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The payload names no attachment (no known key, or an empty list).
        case noAttachment
        /// The data is not JSON, or `userInfo` is not a dictionary.
        case malformedPayload
        case missingKey
        case wrongType
        /// Not a URL, or a relative one.
        case invalidURL
        /// Not https.
        case insecureURL
        /// A type (UTI or extension) iOS does not accept, or no way to tell the type.
        case unsupportedType
        /// Not four numbers in 0…1 describing a rect inside the unit square.
        case invalidClipRect
        /// Not a finite, non-negative number.
        case invalidThumbnailTime
        /// A `pm` version this planner does not read.
        case unsupportedVersion
        /// More attachments than ``DownloadPolicy/maxAttachments``.
        case tooManyAttachments
    }

    public var code: Code
    /// Where in the payload, e.g. `pm.a[1].c`.
    public var path: String
    public var message: String

    public init(_ code: Code, _ path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// How to download within the time iOS gives a Notification Service Extension (about 30 s).
public struct DownloadPolicy: Sendable, Equatable {
    /// The time iOS gives the extension before `serviceExtensionTimeWillExpire()`.
    public var extensionTimeLimit: Double
    /// Finish this long before the limit, to attach files and call the content handler.
    public var safetyMargin: Double
    /// The most one download may take.
    public var perDownloadTimeout: Double
    /// Attachments past this many are not planned.
    public var maxAttachments: Int

    public init(extensionTimeLimit: Double = 30, safetyMargin: Double = 5, perDownloadTimeout: Double = 15, maxAttachments: Int = 3) {
        self.extensionTimeLimit = extensionTimeLimit
        self.safetyMargin = safetyMargin
        self.perDownloadTimeout = perDownloadTimeout
        self.maxAttachments = maxAttachments
    }

    /// 30 s budget, 5 s margin, 15 s per download, at most 3 attachments.
    public static let standard = DownloadPolicy()

    /// Seconds from the start of `didReceive` by which every download must be done.
    public var overallDeadline: Double { max(1, extensionTimeLimit - safetyMargin) }
}

/// One download.
public struct DownloadStep: Sendable, Equatable {
    /// Index into ``AttachmentPlan/attachments``.
    public var index: Int
    public var url: URL
    /// Save the file under this name (it carries the extension iOS checks).
    public var fileName: String
    /// Apple's limit for the type: stop and discard past this many bytes.
    public var maxBytes: Int
    /// Seconds (the request timeout).
    public var timeout: Double

    /// True when a download of `byteCount` bytes may be attached.
    public func accepts(byteCount: Int) -> Bool { byteCount > 0 && byteCount <= maxBytes }
}

/// The downloads for a plan: all run at once, each with a timeout, all within the deadline;
/// whatever has not arrived by then is left out, and with nothing at all the original content
/// is delivered.
public struct DownloadPlan: Sendable, Equatable {
    public var steps: [DownloadStep]
    public var perDownloadTimeout: Double
    /// Seconds from the start of `didReceive`.
    public var overallDeadline: Double
    /// Downloads run concurrently (they are independent; iOS's budget is wall-clock time).
    public var concurrent: Bool

    public init(attachments: [PlannedAttachment], policy: DownloadPolicy) {
        let timeout = min(policy.perDownloadTimeout, policy.overallDeadline)
        steps = attachments.enumerated().map { index, a in
            DownloadStep(index: index, url: a.url, fileName: "\(index)-\(a.fileName)", maxBytes: a.maxBytes, timeout: timeout)
        }
        perDownloadTimeout = timeout
        overallDeadline = policy.overallDeadline
        concurrent = true
    }
}

/// What to hand to iOS once downloads are done (or the deadline passed).
public enum Delivery: Sendable, Equatable {
    /// Attach these, in this order.
    case attachments([PlannedAttachment])
    /// Deliver the notification as it came, without attachments.
    case originalContent(reason: String)
}

/// Everything an extension needs: the ordered attachments, why anything was left out, and how
/// to download.
public struct AttachmentPlan: Sendable, Equatable {
    /// The payload shape the attachments came from; `nil` when none was recognised.
    public var source: PayloadSource?
    public var attachments: [PlannedAttachment]
    /// Why parts of the payload were not planned (empty for a clean payload).
    public var problems: [PlanProblem]
    public var download: DownloadPlan

    public init(source: PayloadSource?, attachments: [PlannedAttachment], problems: [PlanProblem], policy: DownloadPolicy) {
        self.source = source
        self.attachments = attachments
        self.problems = problems
        self.download = DownloadPlan(attachments: attachments, policy: policy)
    }

    /// What to deliver given the downloads that finished: `downloaded[index]` is the byte count
    /// of attachment `index`. Attachments not downloaded, empty or over Apple's limit are left
    /// out; if every attachment left is thumbnail-hidden, the first is shown so the collapsed
    /// notification still has a thumbnail; with none left, the original content.
    public func delivery(downloaded: [Int: Int]) -> Delivery {
        guard !attachments.isEmpty else {
            return .originalContent(reason: problems.first?.description ?? "the payload has no attachments")
        }
        var kept: [PlannedAttachment] = []
        for step in download.steps {
            guard let bytes = downloaded[step.index], step.accepts(byteCount: bytes) else { continue }
            kept.append(attachments[step.index])
        }
        guard !kept.isEmpty else { return .originalContent(reason: "no attachment was downloaded in time and within its size limit") }
        if kept.allSatisfy(\.options.thumbnailHidden) { kept[0].options.thumbnailHidden = false }
        return .attachments(kept)
    }
}
