import Foundation
import PushMediaModel
import PushPayload

/// The published URLs of a manifest file, read by streaming (``ManifestItemReader``): memory
/// holds one item, whatever the manifest's size.
public final class ManifestURLs {
    /// What a first pass over the manifest finds: how much there is to fetch, and the hosts.
    public struct Survey: Sendable, Equatable {
        /// Items with attachments to verify (`ok`).
        public var items = 0
        /// Failed items, which have no attachments.
        public var failedItems = 0
        public var urls = 0
        /// Bytes of the files behind the URLs.
        public var bytes = 0
        /// `host:port` of every URL (``RedirectChain/authority(of:)``).
        public var authorities: Set<String> = []
        /// The longest deadline of any URL, in seconds.
        public var longestDeadline = 0.0
    }

    private let reader: ManifestItemReader
    private let builder: PayloadBuilder
    private let limits: VerifyLimits
    private var pending: [PublishedURL] = []

    public init(file: URL, builder: PayloadBuilder, limits: VerifyLimits) throws {
        reader = try ManifestItemReader(url: file)
        self.builder = builder
        self.limits = limits
    }

    /// The next URL, item after item.
    public func next() throws -> PublishedURL? {
        while pending.isEmpty {
            guard let item = try reader.next() else { return nil }
            pending = try PublishedURL.urls(of: item, builder: builder, limits: limits).reversed()
        }
        return pending.popLast()
    }

    /// Counts what `file` publishes and collects its hosts, reading it through once.
    public static func survey(_ file: URL, builder: PayloadBuilder, limits: VerifyLimits) throws -> Survey {
        let reader = try ManifestItemReader(url: file)
        var survey = Survey()
        while let item = try reader.next() {
            guard item.status == .ok else {
                survey.failedItems += 1
                continue
            }
            let urls = try PublishedURL.urls(of: item, builder: builder, limits: limits)
            guard !urls.isEmpty else { continue }
            survey.items += 1
            survey.urls += urls.count
            for url in urls {
                // Saturating: a sum past Int.max (not reachable with range-checked sizes) stays a count.
                let (sum, overflow) = survey.bytes.addingReportingOverflow(max(0, url.expected.bytes))
                survey.bytes = overflow ? Int.max : sum
                survey.longestDeadline = max(survey.longestDeadline, url.deadline)
                if let authority = URL(string: url.url).flatMap(RedirectChain.authority(of:)) { survey.authorities.insert(authority) }
            }
        }
        return survey
    }
}
