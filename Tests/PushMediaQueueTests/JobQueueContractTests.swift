import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import PushMediaQueue

/// The behaviour both backends must share, each test on a fresh database.
@Suite("JobQueue contract")
struct JobQueueContractTests {
    let owner = "worker-a"
    let lease: Duration = .seconds(30)

    @Test("enqueue is idempotent, one job per campaign + source + profile, also in batches", arguments: Backend.testable)
    func idempotentEnqueue(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let first = try await queue.enqueue(NewJob(campaign: "spring", source: "a.jpg", profile: "p1"))
            let again = try await queue.enqueue(NewJob(campaign: "spring", source: "a.jpg", profile: "p1", maxAttempts: 9))
            #expect(again.id == first.id)
            #expect(again.maxAttempts == Job.defaultMaxAttempts)
            #expect(first.state == .queued && first.attempts == 0)

            // A batch overlapping the existing job and repeating one of its own entries.
            var batch = (0..<1000).map { NewJob(campaign: "spring", source: "img\($0).jpg", profile: "p1") }
            batch.append(NewJob(campaign: "spring", source: "a.jpg", profile: "p1"))
            batch.append(NewJob(campaign: "spring", source: "img7.jpg", profile: "p1"))
            let jobs = try await queue.enqueue(batch)
            #expect(jobs.count == batch.count)
            #expect(zip(jobs, batch).allSatisfy { $0.source == $1.source && $0.campaign == $1.campaign })
            #expect(jobs[1000].id == first.id)
            #expect(jobs[1001].id == jobs[7].id)
            #expect(Set(jobs.map(\.id)).count == 1001)

            // Same source under another profile or campaign is a different job.
            let otherProfile = try await queue.enqueue(NewJob(campaign: "spring", source: "a.jpg", profile: "p2"))
            let otherCampaign = try await queue.enqueue(NewJob(campaign: "summer", source: "a.jpg", profile: "p1"))
            #expect(Set([first.id, otherProfile.id, otherCampaign.id]).count == 3)

            // A second client sees the same jobs and cannot duplicate them.
            let second = try await fixture.open()
            let fromSecond = try await second.enqueue(Array(batch.prefix(10)))
            #expect(fromSecond.map(\.id) == Array(jobs.prefix(10)).map(\.id))
            #expect(try await queue.counts(campaign: "spring")[.queued] == 1002)
            #expect(try await queue.counts(campaign: nil).total == 1003)
        }
    }

    @Test("claims are exclusive under many concurrent claimers", arguments: Backend.testable)
    func exclusiveClaims(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queueA = try await fixture.open(maximumConnections: 8)
            let queueB = try await fixture.open(maximumConnections: 8)
            let jobs = try await queueA.enqueue((0..<200).map { NewJob(campaign: "c", source: "s\($0)", profile: "p") })
            #expect(jobs.count == 200)

            let claims = try await withThrowingTaskGroup(of: [JobID].self) { group in
                for loop in 0..<16 {
                    let queue = loop.isMultiple(of: 2) ? queueA : queueB
                    group.addTask {
                        var mine: [JobID] = []
                        while true {
                            let claimed = try await queue.claim(
                                owner: "loop-\(loop)", leaseDuration: .seconds(60), limit: 1 + loop % 3, campaign: "c")
                            if claimed.isEmpty { return mine }
                            #expect(claimed.allSatisfy { $0.state == .running && $0.leaseOwner == "loop-\(loop)" && $0.attempts == 1 })
                            mine += claimed.map(\.id)
                        }
                    }
                }
                var all: [[JobID]] = []
                for try await ids in group { all.append(ids) }
                return all
            }
            let claimed = claims.flatMap { $0 }
            #expect(claimed.count == 200, "every job claimed exactly once")
            #expect(Set(claimed).count == claimed.count, "no job claimed twice")
            #expect(Set(claimed) == Set(jobs.map(\.id)))
            #expect(claims.filter { !$0.isEmpty }.count > 1, "several loops got work")
            let counts = try await queueA.counts(campaign: "c")
            #expect(counts[.running] == 200 && counts.total == 200)
        }
    }

    @Test("claim order, campaign filter and run-at", arguments: Backend.testable)
    func claimOrderAndFilter(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let now = fixture.clock.now()
            _ = try await queue.enqueue([
                NewJob(campaign: "a", source: "late", profile: "p", runAt: now.addingTimeInterval(60)),
                NewJob(campaign: "a", source: "first", profile: "p"),
                NewJob(campaign: "b", source: "other", profile: "p"),
            ])
            let fromA = try await queue.claim(owner: owner, leaseDuration: lease, limit: 5, campaign: "a")
            #expect(fromA.map(\.source) == ["first"])
            #expect(fromA.first?.leaseExpiresAt == now.addingTimeInterval(30))
            fixture.clock.advance(by: .seconds(61))
            let rest = try await queue.claim(owner: owner, leaseDuration: lease, limit: 5)
            #expect(rest.map(\.source).sorted() == ["late", "other"])
        }
    }

    @Test("a claim takes due queued and retrying jobs alike, oldest run-at first, up to its limit", arguments: Backend.testable)
    func claimMixesDueStates(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let now = fixture.clock.now()
            let retried = try await queue.enqueue(NewJob(campaign: "c", source: "retried", profile: "p"))
            _ = try await queue.claim(owner: owner, leaseDuration: lease)
            _ = try await queue.failTransiently(
                jobID: retried.id, owner: owner, error: JobError(code: "http_503", message: "busy"), retryDelay: .seconds(10))
            _ = try await queue.enqueue([
                NewJob(campaign: "c", source: "at20", profile: "p", runAt: now.addingTimeInterval(20)),
                NewJob(campaign: "c", source: "at5", profile: "p", runAt: now.addingTimeInterval(5)),
                NewJob(campaign: "c", source: "at30", profile: "p", runAt: now.addingTimeInterval(30)),
            ])
            fixture.clock.advance(by: .seconds(25))
            let first = try await queue.claim(owner: "worker-b", leaseDuration: lease, limit: 2)
            #expect(first.map(\.source) == ["at5", "retried"])
            #expect(first.map(\.attempts) == [1, 2])
            #expect(first.allSatisfy { $0.state == .running && $0.leaseOwner == "worker-b" })
            let stored = try #require(try await queue.job(id: retried.id))
            #expect(stored.state == .running && stored.attempts == 2 && stored.leaseOwner == "worker-b")
            #expect(stored.leaseExpiresAt == fixture.clock.now().addingTimeInterval(30))
            let rest = try await queue.claim(owner: "worker-b", leaseDuration: lease, limit: 5)
            #expect(rest.map(\.source) == ["at20"], "at30 is not due yet")
            #expect(try await queue.counts(campaign: "c")[.queued] == 1)
        }
    }

    @Test("an expired lease is rescued: queued with the attempt counted, dead at max attempts", arguments: Backend.testable)
    func leaseExpiryRescue(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p", maxAttempts: 2))
            _ = try await queue.claim(owner: owner, leaseDuration: lease)

            fixture.clock.advance(by: .seconds(29))
            #expect(try await queue.rescueExpiredLeases().isEmpty, "lease not expired yet")

            fixture.clock.advance(by: .seconds(1))
            let rescued = try await queue.rescueExpiredLeases()
            #expect(rescued.map(\.id) == [job.id])
            let queued = try #require(try await queue.job(id: job.id))
            #expect(queued.state == .queued)
            #expect(queued.attempts == 1)
            #expect(queued.leaseOwner == nil && queued.leaseExpiresAt == nil)
            #expect(queued.errorHistory.count == 1)
            #expect(queued.errorHistory.first?.kind == .rescue)
            #expect(queued.errorHistory.first?.message.contains(owner) == true)

            let second = try await queue.claim(owner: "worker-b", leaseDuration: lease)
            #expect(second.map(\.attempts) == [2])
            fixture.clock.advance(by: .seconds(31))
            #expect(try await queue.rescueExpiredLeases().map(\.state) == [.dead])
            let dead = try #require(try await queue.job(id: job.id))
            #expect(dead.state == .dead)
            #expect(dead.lastError?.code == "lease_expired")
            #expect(dead.errorHistory.map(\.kind) == [.rescue, .rescue])
            #expect(dead.finishedAt == fixture.clock.now())
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).isEmpty)
        }
    }

    @Test(
        "abandon: a job whose holder is gone is re-queued at once with its attempt counted, dead after the last; another owner cannot",
        arguments: Backend.testable)
    func abandonCountsTheAttempt(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p", maxAttempts: 2))
            _ = try await queue.claim(owner: owner, leaseDuration: lease)
            await #expect(throws: JobQueueError.self) { try await queue.abandon(jobID: job.id, owner: "someone-else") }
            let queued = try await queue.abandon(jobID: job.id, owner: owner)
            #expect(queued.state == .queued && queued.attempts == 1 && queued.leaseOwner == nil)
            #expect(queued.errorHistory.map(\.code) == [JobStateMachine.ownerGoneCode])
            // Claimable again at once (no lease to wait out), and the last attempt ends it.
            #expect(try await queue.claim(owner: "run-2", leaseDuration: lease).map(\.attempts) == [2])
            let dead = try await queue.abandon(jobID: job.id, owner: "run-2")
            #expect(dead.state == .dead && dead.lastError?.code == JobStateMachine.ownerGoneCode && dead.finishedAt == fixture.clock.now())
            #expect(try await queue.job(id: job.id)?.state == .dead)
            #expect(try await queue.claim(owner: "run-3", leaseDuration: lease).isEmpty)
        }
    }

    @Test("a transient failure backs off: not claimable before run-at, claimable after", arguments: Backend.testable)
    func backoffTiming(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            _ = try await queue.claim(owner: owner, leaseDuration: lease)
            let retrying = try await queue.failTransiently(
                jobID: job.id, owner: owner, error: JobError(code: "http_503", message: "origin busy"),
                retryDelay: .seconds(40))
            #expect(retrying.state == .retrying)
            #expect(retrying.runAt == fixture.clock.now().addingTimeInterval(40))
            #expect(retrying.lastError == JobError(code: "http_503", message: "origin busy"))

            fixture.clock.advance(by: .seconds(39))
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).isEmpty)
            fixture.clock.advance(by: .seconds(1))
            let again = try await queue.claim(owner: owner, leaseDuration: lease)
            #expect(again.map(\.id) == [job.id])
            #expect(again.first?.attempts == 2)
            let stored = try #require(try await queue.job(id: job.id))
            #expect(stored.errorHistory.map(\.kind) == [.transientError])
            #expect(stored.errorHistory.first?.code == "http_503")
        }
    }

    @Test("a permanent failure finishes the job at once with its failed item", arguments: Backend.testable)
    func permanentFailure(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            _ = try await queue.claim(owner: owner, leaseDuration: lease)
            let item = Data(json: #"{"status":"failed"}"#)
            let failed = try await queue.fail(
                jobID: job.id, owner: owner, error: JobError(code: "decode_failed", message: "not an image"), result: item)
            #expect(failed.state == .failed)
            let stored = try #require(try await queue.job(id: job.id))
            #expect(stored.state == .failed)
            #expect(stored.result == item)
            #expect(stored.lastError?.code == "decode_failed")
            #expect(stored.finishedAt == fixture.clock.now())
            fixture.clock.advance(by: .seconds(3600))
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).isEmpty)
            #expect(try await queue.rescueExpiredLeases().isEmpty)
            #expect(try await queue.counts(campaign: "c")[.failed] == 1)
        }
    }

    @Test("out of attempts the job is dead; retryDead re-queues it with attempts reset", arguments: Backend.testable)
    func deadLetterAndRetryDead(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(defaultMaxAttempts: 2)
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            let other = try await queue.enqueue(NewJob(campaign: "d", source: "s", profile: "p", maxAttempts: 1))
            #expect(job.maxAttempts == 2)
            for attempt in 1...2 {
                let claimed = try await queue.claim(owner: owner, leaseDuration: lease, limit: 1, campaign: "c")
                #expect(claimed.first?.attempts == attempt)
                _ = try await queue.failTransiently(
                    jobID: job.id, owner: owner, error: JobError(code: "timeout", message: "attempt \(attempt)"),
                    retryDelay: .seconds(1))
                fixture.clock.advance(by: .seconds(2))
            }
            _ = try await queue.claim(owner: owner, leaseDuration: lease, limit: 1, campaign: "d")
            _ = try await queue.failTransiently(
                jobID: other.id, owner: owner, error: JobError(code: "timeout", message: "d"), retryDelay: .zero)

            let dead = try await queue.deadJobs(campaign: "c", limit: 10)
            #expect(dead.map(\.id) == [job.id])
            #expect(dead.first?.lastError == JobError(code: "timeout", message: "attempt 2"))
            #expect(dead.first?.errorHistory.count == 2)
            #expect(try await queue.deadJobs(campaign: nil, limit: 10).map(\.id) == [job.id, other.id])
            #expect(try await queue.deadJobs(campaign: nil, limit: 1).map(\.id) == [job.id])
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).isEmpty)

            #expect(try await queue.retryDead(campaign: "c") == 1)
            let requeued = try #require(try await queue.job(id: job.id))
            #expect(requeued.state == .queued && requeued.attempts == 0 && requeued.finishedAt == nil)
            #expect(requeued.errorHistory.last?.kind == .requeue)
            #expect(try await queue.job(id: other.id)?.state == .dead, "another campaign's dead job stays dead")
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).map(\.id) == [job.id])
            #expect(try await queue.retryDead(campaign: nil) == 1)
        }
    }

    @Test("requeue processes finished jobs again and leaves unfinished ones alone", arguments: Backend.testable)
    func requeueFinished(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let jobs = try await queue.enqueue((0..<3).map { NewJob(campaign: "c", source: "s\($0)", profile: "p") })
            let claimed = try await queue.claim(owner: owner, leaseDuration: lease, limit: 2, campaign: "c")
            #expect(claimed.count == 2)
            _ = try await queue.complete(jobID: claimed[0].id, owner: owner, result: Data(json: "{}"))
            // claimed[1] stays running, jobs[2] stays queued.
            let count = try await queue.requeue(jobIDs: jobs.map(\.id) + [9_999], reason: "the source changed")
            #expect(count == 1)
            let again = try #require(try await queue.job(id: claimed[0].id))
            #expect(again.state == .queued && again.attempts == 0 && again.result == nil)
            #expect(again.errorHistory.last?.message == "the source changed")
            #expect(try await queue.job(id: claimed[1].id)?.state == .running)
            #expect(try await queue.requeue(jobIDs: [], reason: "none") == 0)
            let next = try await queue.claim(owner: owner, leaseDuration: lease, limit: 5, campaign: "c")
            #expect(Set(next.map(\.id)) == Set([claimed[0].id, jobs[2].id]))
        }
    }

    @Test("heartbeat extends the lease; a lost lease is refused", arguments: Backend.testable)
    func heartbeatAndLostLease(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            _ = try await queue.claim(owner: owner, leaseDuration: .seconds(10))
            fixture.clock.advance(by: .seconds(8))
            #expect(try await queue.heartbeat(jobID: job.id, owner: owner, leaseDuration: .seconds(10)))
            #expect(try await queue.job(id: job.id)?.leaseExpiresAt == fixture.clock.now().addingTimeInterval(10))
            #expect(try await !queue.heartbeat(jobID: job.id, owner: "intruder", leaseDuration: .seconds(10)))
            fixture.clock.advance(by: .seconds(8))
            #expect(try await queue.rescueExpiredLeases().isEmpty, "the heartbeat kept the lease alive")
            fixture.clock.advance(by: .seconds(3))
            #expect(try await queue.rescueExpiredLeases().count == 1)

            #expect(try await !queue.heartbeat(jobID: job.id, owner: owner, leaseDuration: .seconds(10)))
            await #expect(throws: JobQueueError.self) {
                try await queue.complete(jobID: job.id, owner: owner, result: Data(json: "{}"))
            }
            let taken = try await queue.claim(owner: "worker-b", leaseDuration: .seconds(10))
            #expect(taken.map(\.id) == [job.id])
            do {
                _ = try await queue.fail(jobID: job.id, owner: owner, error: JobError(code: "x", message: "late"), result: nil)
                Issue.record("a worker that lost its lease must not overwrite the job")
            } catch JobQueueError.leaseLost(let id, let lostOwner) {
                #expect(id == job.id && lostOwner == owner)
            }
            await #expect(throws: JobQueueError.self) {
                try await queue.release(jobID: job.id, owner: owner)
            }
            let done = try await queue.complete(jobID: job.id, owner: "worker-b", result: Data(json: #"{"ok":true}"#))
            #expect(done.state == .succeeded)
            #expect(try await queue.job(id: job.id)?.result == Data(json: #"{"ok":true}"#))
            #expect(try await !queue.heartbeat(jobID: 999_999, owner: owner, leaseDuration: .seconds(1)))
        }
    }

    @Test("release gives a running job back without counting the attempt", arguments: Backend.testable)
    func release(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open()
            let job = try await queue.enqueue(NewJob(campaign: "c", source: "s", profile: "p"))
            #expect(try await queue.claim(owner: owner, leaseDuration: lease).first?.attempts == 1)
            let released = try await queue.release(jobID: job.id, owner: owner)
            #expect(released.state == .queued && released.attempts == 0 && released.leaseOwner == nil)
            #expect(try await queue.claim(owner: "worker-b", leaseDuration: lease).first?.attempts == 1)
        }
    }
}
