import Foundation

/// Where a page of a campaign's jobs ends, so the next page starts after it (keyset pagination:
/// each page is one index range scan, whatever the campaign's size; nothing is held between pages).
public struct JobPosition: Sendable, Hashable {
    public var source: String
    public var profile: String

    public init(source: String, profile: String) {
        self.source = source
        self.profile = profile
    }

    /// The position of `job`: the next page starts after it.
    public init(after job: Job) {
        self.init(source: job.source, profile: job.profile)
    }
}

/// The finishes of a campaign within a recent window: what a throughput estimate needs, counted
/// by the queue instead of read job by job.
public struct RecentFinishes: Sendable, Equatable {
    /// Jobs that finished in the window.
    public var count: Int
    /// The earliest finish in the window (nil when none).
    public var first: Date?

    public init(count: Int, first: Date?) {
        self.count = count
        self.first = first
    }
}

extension JobQueue {
    /// Jobs read a page at a time by ``JobQueue/jobs(campaign:after:limit:)``.
    public static var defaultPageSize: Int { 500 }

    /// Calls `body` with each page of `campaign`'s jobs, in the order of ``JobQueue/jobs(campaign:)``
    /// (by source, then profile), holding at most two pages at a time: memory does not grow with
    /// the campaign. The next page is read while `body` works on this one (on two cores the
    /// database and the caller overlap), so a page's jobs are seen as they are when it is read,
    /// which may be before `body` returns for the page before it.
    public func forEachPage(
        campaign: String, pageSize: Int = Self.defaultPageSize, _ body: ([Job]) async throws -> Void
    ) async throws {
        func read(after position: JobPosition?) -> Task<[Job], any Error> {
            Task { try await jobs(campaign: campaign, after: position, limit: pageSize) }
        }
        var next: Task<[Job], any Error>? = read(after: nil)
        defer { next?.cancel() }
        while let reading = next {
            let page = try await reading.value
            next = page.count < pageSize ? nil : read(after: page.last.map(JobPosition.init(after:)))
            if page.isEmpty { return }
            try await body(page)
        }
    }
}
