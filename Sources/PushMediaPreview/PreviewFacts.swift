import Foundation
import PushMediaModel

/// How long a notification service extension needs to download an item's attachments, on the
/// slow link the preview assumes.
public enum DownloadEstimate {
    /// The slow link: 1 Mbps (1,000,000 bits per second).
    public static let slowLinkBitsPerSecond = 1_000_000
    /// The time iOS gives a notification service extension before it shows the notification
    /// without attachments.
    public static let extensionTimeLimitSeconds = 30.0

    /// Seconds to transfer `bytes` at `bitsPerSecond`: `bytes × 8 ÷ bitsPerSecond` (no latency,
    /// TLS or protocol overhead: a lower bound).
    public static func seconds(bytes: Int, bitsPerSecond: Int = slowLinkBitsPerSecond) -> Double {
        guard bitsPerSecond > 0 else { return .infinity }
        return Double(bytes) * 8 / Double(bitsPerSecond)
    }

    /// Seconds to download all of an item's attachments, one after the other.
    public static func seconds(for item: Item, bitsPerSecond: Int = slowLinkBitsPerSecond) -> Double {
        seconds(bytes: item.attachments.reduce(0) { $0 + $1.bytes }, bitsPerSecond: bitsPerSecond)
    }
}

/// What the page measures download times against: the manifest profile's delivery target (a
/// link speed and the seconds a notification's attachments may take), never past the 30 s iOS
/// gives the extension.
struct DeliveryTarget: Equatable {
    var bitsPerSecond: Int
    var seconds: Double

    init(_ delivery: Profile.Delivery, bitsPerSecond: Int? = nil) {
        self.bitsPerSecond = bitsPerSecond ?? delivery.linkBitsPerSecond
        seconds = min(delivery.seconds, DownloadEstimate.extensionTimeLimitSeconds)
    }

    /// The link in words, e.g. `1 Mbit/s`, `256 kbit/s`.
    var link: String {
        bitsPerSecond >= 1_000_000
            ? Format.decimal(Double(bitsPerSecond) / 1_000_000, places: 2) + " Mbit/s"
            : Format.decimal(Double(bitsPerSecond) / 1_000, places: 1) + " kbit/s"
    }

    /// `over` past the target, `warn` past half of it, else `ok`.
    func state(_ downloadSeconds: Double) -> String {
        downloadSeconds > seconds ? "over" : downloadSeconds > seconds / 2 ? "warn" : "ok"
    }
}

/// The numbers the summary header shows, computed from a manifest.
public struct PreviewSummary: Sendable, Equatable {
    /// One item's download estimate.
    public struct ItemEstimate: Sendable, Equatable {
        /// The item's position in the manifest.
        public var item: Int
        public var source: String
        public var sourceEncoding: SourceEncoding?
        public var bytes: Int
        public var seconds: Double
        /// True when ``seconds`` exceeds the extension's 30 s.
        public var overLimit: Bool { seconds > DownloadEstimate.extensionTimeLimitSeconds }
    }

    /// The largest single attachment, and whose it is.
    public struct Largest: Sendable, Equatable {
        public var source: String
        public var attachment: Attachment
    }

    public var total: Int
    public var ok: Int
    public var failed: Int
    /// Items with at least one warning.
    public var warned: Int
    /// Distinct files to upload (attachments are content-addressed, so items may share one).
    public var filesToHost: Int
    /// Bytes of the distinct files to upload.
    public var bytesToHost: Int
    public var largest: Largest?
    /// Every item that has attachments, in manifest order.
    public var estimates: [ItemEstimate]

    /// Computes the summary of `manifest`.
    public init(_ manifest: Manifest, bitsPerSecond: Int = DownloadEstimate.slowLinkBitsPerSecond) {
        self.init(items: manifest.items, bitsPerSecond: bitsPerSecond)
    }

    /// Computes the summary of a manifest's `items` (manifest order). Keeps every file name and
    /// estimate: for a page's worth of items (``PreviewBook`` summarises larger campaigns in
    /// bounded memory).
    public init(items: [Item], bitsPerSecond: Int = DownloadEstimate.slowLinkBitsPerSecond) {
        total = items.count
        ok = items.filter { $0.status == .ok }.count
        failed = items.filter { $0.status == .failed }.count
        warned = items.filter { !$0.warnings.isEmpty }.count
        var files: [String: Int] = [:]
        var largest: Largest?
        for item in items {
            for attachment in item.attachments {
                files[attachment.file] = attachment.bytes
                if attachment.bytes > largest?.attachment.bytes ?? -1 {
                    largest = Largest(source: item.source, attachment: attachment)
                }
            }
        }
        filesToHost = files.count
        bytesToHost = files.values.reduce(0, +)
        self.largest = largest
        estimates = items.enumerated().filter { !$0.element.attachments.isEmpty }.map { index, item in
            let bytes = item.attachments.reduce(0) { $0 + $1.bytes }
            return ItemEstimate(
                item: index, source: item.source, sourceEncoding: item.sourceEncoding, bytes: bytes,
                seconds: DownloadEstimate.seconds(bytes: bytes, bitsPerSecond: bitsPerSecond))
        }
    }
}

/// Where the collapsed thumbnail lies on the expanded image, as CSS for an `<img>` placed
/// absolutely inside a square box with `overflow: hidden`: the image is scaled so that the
/// clipping rect fills the box, and shifted so the rect's corner is the box's corner.
public struct ClipGeometry: Sendable, Equatable {
    /// Image width as a percentage of the box: `100 ÷ Width`.
    public var widthPercent: Double
    /// Image height as a percentage of the box: `100 ÷ Height`.
    public var heightPercent: Double
    /// Image left edge: `−X ÷ Width × 100` %.
    public var leftPercent: Double
    /// Image top edge: `−Y ÷ Height × 100` %.
    public var topPercent: Double

    /// Nil when `rect` is not a usable unit rect.
    public init?(_ rect: UnitRect) {
        guard rect.isValid else { return nil }
        widthPercent = 100 / rect.width
        heightPercent = 100 / rect.height
        leftPercent = -rect.x / rect.width * 100
        topPercent = -rect.y / rect.height * 100
    }
}

/// Relative paths between folders, computed from the paths alone (no file system access).
public enum RelativePath {
    /// The `/`-separated path that leads from `directory` to `target` (both folders), ending in
    /// `/`, or `""` when they are the same folder. `.` and `..` are resolved first; symbolic
    /// links are not.
    public static func from(_ directory: URL, to target: URL) -> String {
        let from = components(directory)
        let to = components(target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let up = Array(repeating: "..", count: from.count - common)
        let down = Array(to[common...])
        let parts = up + down
        return parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
    }

    private static func components(_ url: URL) -> [String] {
        var out: [String] = []
        for part in url.path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !out.isEmpty { out.removeLast() }
            default: out.append(String(part))
            }
        }
        return out
    }
}

/// Locale-independent number formatting for the page.
enum Format {
    /// `value` with at most `places` decimals, trailing zeros dropped, `.` as decimal point.
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        if rounded == 0 { return "0" }
        var text = String(format: "%.\(places)f", rounded)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// Decimal byte sizes as Apple counts its limits: `950 B`, `11.7 KB`, `1.25 MB`.
    static func bytes(_ bytes: Int) -> String {
        let b = Double(bytes)
        if bytes < 1000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return decimal(b / 1000, places: b < 100_000 ? 1 : 0) + " KB" }
        return decimal(b / 1_000_000, places: 2) + " MB"
    }

    /// Seconds for the estimate: `0.09 s`, `1.2 s`, `45 s`.
    static func seconds(_ s: Double) -> String {
        if s < 1 { return decimal(s, places: 2) + " s" }
        if s < 10 { return decimal(s, places: 1) + " s" }
        return decimal(s, places: 0) + " s"
    }

    /// `a` as a percentage of `b`, for bar widths: clamped to 0…100.
    static func percent(_ a: Double, of b: Double) -> Double {
        guard b > 0 else { return 0 }
        return min(100, max(0, a / b * 100))
    }
}
