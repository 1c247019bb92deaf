import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import PushMediaQueue

/// The contract's reads: the results cache, counts, status, pages, recent finishes and migration.
extension JobQueueContractTests {
    @Test("the results cache is keyed by content SHA-256 and profile, across campaigns", arguments: Backend.testable)
    func resultsCache(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let sha = String(repeating: "ab", count: 32)
            #expect(try await queue.cachedResult(contentSHA256: sha, profile: "p1") == nil)
            let item = Data(json: #"{"variants":[{"w":1024}]}"#)
            try await queue.storeCachedResult(item, contentSHA256: sha, profile: "p1")
            #expect(try await queue.cachedResult(contentSHA256: sha, profile: "p1") == item)
            #expect(try await queue.cachedResult(contentSHA256: sha.uppercased(), profile: "p1") == item)
            #expect(try await queue.cachedResult(contentSHA256: sha, profile: "p2") == nil)
            #expect(try await queue.cachedResult(contentSHA256: String(repeating: "cd", count: 32), profile: "p1") == nil)

            // Another client (another campaign's worker) reuses it; a store replaces it.
            let other = try await fixture.open()
            #expect(try await other.cachedResult(contentSHA256: sha, profile: "p1") == item)
            let newer = Data(json: #"{"variants":[]}"#)
            try await other.storeCachedResult(newer, contentSHA256: sha, profile: "p1")
            #expect(try await queue.cachedResult(contentSHA256: sha, profile: "p1") == newer)
        }
    }

    @Test("counts by state, per campaign and overall; jobs listed by source with results", arguments: Backend.testable)
    func countsAndStatus(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let jobs = try await queue.enqueue([
                NewJob(campaign: "b", source: "z.jpg", profile: "p"),
                NewJob(campaign: "b", source: "a.jpg", profile: "p"),
                NewJob(campaign: "b", source: "m.jpg", profile: "p"),
                NewJob(campaign: "a", source: "x.jpg", profile: "p"),
            ])
            let claimed = try await queue.claim(owner: owner, leaseDuration: lease, limit: 2, campaign: "b")
            #expect(claimed.count == 2)
            try await queue.complete(jobID: claimed[0].id, owner: owner, result: Data(json: #"{"n":1}"#))

            let countsB = try await queue.counts(campaign: "b")
            #expect(countsB[.succeeded] == 1 && countsB[.running] == 1 && countsB[.queued] == 1 && countsB.total == 3)
            #expect(!countsB.isDrained)
            let all = try await queue.counts(campaign: nil)
            #expect(all[.queued] == 2 && all.total == 4)
            #expect(try await queue.counts(campaign: "nope") == JobCounts())

            let byCampaign = try await queue.countsByCampaign()
            #expect(byCampaign.map(\.campaign) == ["a", "b"])
            #expect(byCampaign.first?.counts[.queued] == 1)
            #expect(byCampaign.last?.counts == countsB)

            let listed = try await queue.jobs(campaign: "b")
            #expect(listed.map(\.source) == ["a.jpg", "m.jpg", "z.jpg"])
            #expect(listed.first { $0.id == claimed[0].id }?.result == Data(json: #"{"n":1}"#))
            #expect(Set(listed.map(\.id)) == Set(jobs.prefix(3).map(\.id)))
        }
    }

    @Test("a campaign read page by page gives every job once, in the order of jobs(campaign:)", arguments: Backend.testable)
    func pagedJobs(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            // Byte order, not a locale's: upper case before lower, "a.jpg" before "a/b.jpg",
            // multi-byte names after ASCII, one source under two profiles.
            var sources = (0..<1234).map { String(format: "img%05d.jpg", ($0 * 7919) % 1234) }
            sources += ["B.jpg", "a.jpg", "a/b.jpg", "a-b.jpg", "é.jpg", "z.jpg", "Z/ü.png"]
            _ = try await queue.enqueue(sources.map { NewJob(campaign: "big", source: $0, profile: "p1") })
            _ = try await queue.enqueue([
                NewJob(campaign: "big", source: "a.jpg", profile: "p0"), NewJob(campaign: "other", source: "a.jpg", profile: "p1"),
            ])

            let all = try await queue.jobs(campaign: "big")
            #expect(all.count == sources.count + 1)
            let expected = all.map { [$0.source, $0.profile] }
            #expect(
                expected == expected.sorted { a, b in a.lexicographicallyPrecedes(b) { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } })

            for pageSize in [1, 7, 500, 5000] {
                var paged: [Job] = []
                var largest = 0
                try await queue.forEachPage(campaign: "big", pageSize: pageSize) { page in
                    largest = max(largest, page.count)
                    paged += page
                }
                #expect(paged.map(\.id) == all.map(\.id), "page size \(pageSize)")
                #expect(largest <= pageSize)
            }
            // A page after the last job is empty; an unknown campaign has none.
            #expect(try await queue.jobs(campaign: "big", after: JobPosition(after: all.last!), limit: 10).isEmpty)
            #expect(try await queue.jobs(campaign: "none", after: nil, limit: 10).isEmpty)
        }
    }

    @Test("recent finishes are counted by the queue", arguments: Backend.testable)
    func recentFinishes(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            _ = try await queue.enqueue((0..<5).map { NewJob(campaign: "c", source: "s\($0)", profile: "p") })
            var finishedAt: [Date] = []
            for job in try await queue.claim(owner: owner, leaseDuration: lease, limit: 3, campaign: "c") {
                let done = try await queue.complete(jobID: job.id, owner: owner, result: Data(json: #"{"n":1}"#))
                finishedAt.append(try #require(done.finishedAt))
            }
            // The queue's own clock (a test clock here) stamps the finishes.
            let earliest = try #require(finishedAt.min())
            let finishes = try await queue.finishes(campaign: "c", since: earliest.addingTimeInterval(-1))
            #expect(finishes.count == 3)
            #expect(abs(try #require(finishes.first).timeIntervalSince(earliest)) < 0.002)
            #expect(try await queue.finishes(campaign: "c", since: try #require(finishedAt.max()).addingTimeInterval(1)).count == 0)
            #expect(try await queue.finishes(campaign: "other", since: .distantPast) == RecentFinishes(count: 0, first: nil))
        }
    }

    @Test("opening the same database twice migrates once and keeps the data", arguments: Backend.testable)
    func migrationIdempotence(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            // Two clients opening a brand-new database at the same time.
            async let first = fixture.open()
            async let second = fixture.open()
            let (queueA, queueB) = try await (first, second)
            let job = try await queueA.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            let queueC = try await fixture.open()
            #expect(try await queueC.job(id: job.id)?.source == "s")
            #expect(try await queueB.counts(campaign: nil).total == 1)
            if let postgres = queueC as? PostgresJobQueue {
                #expect(try await postgres.appliedMigrationVersions() == PostgresJobQueue.migrations.map(\.version))
            }
        }
    }
}
