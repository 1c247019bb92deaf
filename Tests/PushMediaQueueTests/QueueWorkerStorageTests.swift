import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import PushMediaQueue

/// A full or failing disk under the worker (``StorageFailure``): the job that met it goes back
/// uncounted, and the worker stops (a batch) or pauses and reports unhealthy (a worker), on
/// both backends.
@Suite("QueueWorker storage failures")
struct QueueWorkerStorageTests {
    static func configuration(_ action: QueueWorker.StorageFailureAction, concurrency: Int = 1) -> QueueWorker.Configuration {
        QueueWorker.Configuration(
            owner: "storage-test", concurrency: concurrency, leaseDuration: .seconds(30), rescueInterval: .seconds(30),
            pollInterval: .milliseconds(50), retryPolicy: RetryPolicy(base: .milliseconds(20), factor: 2, cap: .milliseconds(100), jitter: 0),
            onStorageFailure: action, failureBackoff: RetryPolicy(base: .milliseconds(20), factor: 2, cap: .milliseconds(200), jitter: 0))
    }

    static let full = StorageFailure(place: "/srv/out", reason: "No space left on device")

    @Test("stop: the run ends with the failure, the job is back in the queue uncounted, no other job is claimed", arguments: Backend.testable)
    func stopEndsTheRun(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            _ = try await queue.enqueue((1...5).map { NewJob(campaign: "c", source: "f\($0)", profile: "p") })
            let handled = NIOLockedValueBox<[String]>([])
            let worker = QueueWorker(queue: queue, configuration: Self.configuration(.stop), logger: QueueWorkerTests.quietLogger()) { job in
                handled.withLockedValue { $0.append(job.source) }
                throw Self.full
            }
            await #expect(throws: Self.full) { try await worker.runUntilDrained(campaign: "c") }
            // One slot: exactly one job was tried, and it is queued again with no attempt counted.
            #expect(handled.withLockedValue { $0 }.count == 1)
            let jobs = try await queue.jobs(campaign: "c")
            #expect(jobs.allSatisfy { $0.state == .queued && $0.attempts == 0 && $0.errorHistory.isEmpty }, "\(jobs)")
        }
    }

    @Test("pause: claiming waits out the failure, health says failing until an outcome is recorded, then every job ends", arguments: Backend.testable)
    func pauseThenRecover(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let queue = try await fixture.open(manualClock: false)
            _ = try await queue.enqueue((1...3).map { NewJob(campaign: "c", source: "f\($0)", profile: "p") })
            let calls = NIOLockedValueBox(0)
            let healthSeen = NIOLockedValueBox<[QueueWorker.Health]>([])
            let box = NIOLockedValueBox<QueueWorker?>(nil)
            let worker = QueueWorker(queue: queue, configuration: Self.configuration(.pause), logger: QueueWorkerTests.quietLogger()) { job in
                let call = calls.withLockedValue {
                    $0 += 1
                    return $0
                }
                // The health as the worker reports it while this job runs.
                if let health = box.withLockedValue({ $0 })?.health { healthSeen.withLockedValue { $0.append(health) } }
                if call <= 2 { throw Self.full }
                return .succeeded(result: Data(), kind: nil)
            }
            box.withLockedValue { $0 = worker }
            #expect(worker.health == .ok)
            try await worker.runUntilDrained(campaign: "c")
            let jobs = try await queue.jobs(campaign: "c")
            #expect(jobs.allSatisfy { $0.state == .succeeded && $0.attempts == 1 }, "given back uncounted: \(jobs.map { ($0.source, $0.attempts) })")
            #expect(calls.withLockedValue { $0 } == 5)
            let seen = healthSeen.withLockedValue { $0 }
            // First call: healthy. Second: one failure. Third (the first success): two in a row.
            guard seen.count == 5 else {
                Issue.record("\(seen)")
                return
            }
            #expect(seen[0] == .ok)
            if case .failing(let reason, let failures, _) = seen[1] {
                #expect(failures == 1 && reason == Self.full.description)
            } else {
                Issue.record("not failing after a storage failure: \(seen[1])")
            }
            if case .failing(_, let failures, _) = seen[2] { #expect(failures == 2) } else { Issue.record("\(seen[2])") }
            // A recorded outcome: healthy again.
            #expect(seen[3] == .ok && seen[4] == .ok)
            #expect(worker.health == .ok)
        }
    }

    @Test("a claim that fails is backed off and reported, and recovers", arguments: [Backend.sqlite])
    func failingClaimsBackOff(_ backend: Backend) async throws {
        try await withFixture(backend) { fixture in
            let inner = try await fixture.open(manualClock: false)
            _ = try await inner.enqueue([NewJob(campaign: "c", source: "f1", profile: "p")])
            let queue = FailingClaims(inner, failures: 3)
            let worker = QueueWorker(queue: queue, configuration: Self.configuration(.pause), logger: QueueWorkerTests.quietLogger()) { _ in
                .succeeded(result: Data(), kind: nil)
            }
            let healthWhileFailing = NIOLockedValueBox<QueueWorker.Health?>(nil)
            queue.onLastFailure = { healthWhileFailing.withLockedValue { $0 = worker.health } }
            try await worker.runUntilDrained(campaign: "c")
            #expect(queue.claims.withLockedValue { $0 } >= 4)
            // When the third claim fails, the worker already reports the two before it.
            if case .failing(_, let failures, _) = healthWhileFailing.withLockedValue({ $0 }) {
                #expect(failures == 2)
            } else {
                Issue.record("healthy while claims fail")
            }
            #expect(worker.health == .ok)
            #expect(try await inner.jobs(campaign: "c").allSatisfy { $0.state == .succeeded })
        }
    }
}
