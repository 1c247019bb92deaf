import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// A generic worker: claims jobs from a ``JobQueue`` into N concurrent slots and runs a handler on
/// each, heartbeating while it runs and rescuing expired leases periodically.
///
/// As a swift-service-lifecycle `Service`, ``run()`` works until graceful shutdown: it stops
/// claiming, lets running jobs finish within ``Configuration/shutdownGracePeriod``, then releases
/// the rest back to the queue (their attempt is not counted). ``runUntilDrained(campaign:)`` is the
/// batch mode: it returns once nothing of the campaign is queued, running or retrying.
///
/// Outcomes: `.succeeded` completes the job, `.failed` fails it permanently, a thrown error is
/// transient (retried after ``RetryPolicy`` backoff, dead when out of attempts) unless it is a
/// ``QueueJobError`` with `isPermanent`. Each outcome logs one line with `job_id` and `campaign`.
public final class QueueWorker: Service {
    /// The handler that processes one job.
    public typealias Handler = @Sendable (Job) async throws -> JobOutcome

    /// The queue.
    public let queue: any JobQueue
    /// The configuration.
    public let configuration: Configuration
    let handler: Handler
    let logger: Logger
    let metrics = QueueWorkerMetrics()
    let state: NIOLockedValueBox<WorkerState>
    /// Woken when a slot frees or shutdown begins.
    let wake = WakeSignal()

    struct WorkerState: Sendable {
        var slots: WorkerSlots
        var phase: WorkerShutdownPhase = .running
        var tasks: [JobID: Task<Void, Never>] = [:]
        /// Claims that failed in a row (reset by a claim that succeeds).
        var claimFailures = FailureStreak()
        /// Storage failures in a row (reset when a job's outcome is recorded): no claim
        /// before `pausedUntil`.
        var storageFailures = FailureStreak()
        var pausedUntil: ContinuousClock.Instant?
        /// The storage failure that stopped the run (``StorageFailureAction/stop``).
        var halt: StorageFailure?
    }

    /// Failures in a row, the first one's time and the last one's words.
    struct FailureStreak: Sendable {
        var count = 0
        var since: Date?
        var reason = ""

        mutating func record(_ reason: String) -> Int {
            count += 1
            since = since ?? Date()
            self.reason = reason
            return count
        }
    }

    /// Creates a worker.
    public init(
        queue: any JobQueue, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "pushmedia.queue.worker"), handler: @escaping Handler
    ) {
        self.queue = queue
        self.configuration = configuration
        self.logger = logger
        self.handler = handler
        state = NIOLockedValueBox(WorkerState(slots: WorkerSlots(capacity: configuration.concurrency)))
    }

    /// Runs until graceful shutdown (or cancellation), then stops claiming, waits up to the grace
    /// period for running jobs and releases the rest.
    public func run() async throws {
        await work(campaign: configuration.campaign, untilDrained: false)
    }

    /// Runs until no job of `campaign` (every campaign when nil) is queued, running or retrying
    /// (a retrying job's run-at is waited for), or until graceful shutdown.
    /// - Throws: the ``StorageFailure`` that stopped it, with ``StorageFailureAction/stop``.
    public func runUntilDrained(campaign: String? = nil) async throws {
        await work(campaign: campaign ?? configuration.campaign, untilDrained: true)
        if let halt = state.withLockedValue({ $0.halt }) { throw halt }
    }

    /// Whether the worker can claim and record jobs (`/healthz`): failing while claims fail or
    /// it waits out a storage failure.
    public var health: Health {
        state.withLockedValue { state in
            let streak = state.storageFailures.count > 0 ? state.storageFailures : state.claimFailures
            guard streak.count > 0, let since = streak.since else { return .ok }
            return .failing(reason: streak.reason, failures: streak.count, since: since)
        }
    }

    /// Begins graceful shutdown programmatically (same as a service-lifecycle shutdown signal).
    public func beginShutdown() {
        state.withLockedValue { $0.phase.advance(to: .draining) }
        wake.signal()
    }

    /// The current phase.
    public var phase: WorkerShutdownPhase { state.withLockedValue { $0.phase } }

    private func work(campaign: String?, untilDrained: Bool) async {
        let rescuer = Task { await self.rescueLoop() }
        await withGracefulShutdownHandler {
            await self.claimLoop(campaign: campaign, untilDrained: untilDrained)
        } onGracefulShutdown: {
            self.beginShutdown()
        }
        rescuer.cancel()
        let cancelled = Task.isCancelled
        // Unstructured: finishing (waiting, releasing through the database) must not inherit cancellation.
        await Task { await self.finishRunningJobs(grace: cancelled ? .zero : self.configuration.shutdownGracePeriod) }.value
        await rescuer.value
    }

    private func claimLoop(campaign: String?, untilDrained: Bool) async {
        while !Task.isCancelled {
            let (phase, free, inUse, pausedUntil) = state.withLockedValue {
                ($0.phase, $0.slots.free, $0.slots.inUse, $0.pausedUntil)
            }
            guard phase.acceptsNewJobs else { return }
            if let pausedUntil, pausedUntil > .now {
                // Backing off a storage failure; shutdown wakes it.
                _ = await wake.wait(timeout: pausedUntil - .now)
                continue
            }
            if free == 0 {
                _ = await wake.wait(timeout: configuration.pollInterval)
                continue
            }
            let jobs: [Job]
            do {
                let claimStarted = ContinuousClock.now
                jobs = try await queue.claim(
                    owner: configuration.owner, leaseDuration: configuration.leaseDuration, limit: free,
                    campaign: campaign)
                metrics.recordClaim(.now - claimStarted)
            } catch let failure as StorageFailure {
                storageFailed(failure, job: nil)
                continue
            } catch {
                // Backing off: a queue that cannot be claimed from is not asked ten times a second.
                let failures = state.withLockedValue { $0.claimFailures.record("\(error)") }
                let delay = configuration.failureBackoff.delay(afterAttempt: failures)
                logger.error(
                    "claim failed", metadata: ["error": "\(error)", "failures": "\(failures)", "retry_in": "\(delay)"])
                _ = await wake.wait(timeout: delay)
                continue
            }
            state.withLockedValue { $0.claimFailures = FailureStreak() }
            for job in jobs { start(job) }
            if jobs.isEmpty {
                if untilDrained, inUse == 0 {
                    do {
                        if try await queue.counts(campaign: campaign).isDrained { return }
                    } catch {
                        logger.error("status query failed", metadata: ["error": "\(error)"])
                    }
                }
                await waitForWorkOrWake()
            }
        }
    }

    /// Acts on a storage failure met by a claim, by recording an outcome, or by a job's handler
    /// (`job`, already given back): stops the run or pauses claiming, per configuration.
    func storageFailed(_ failure: StorageFailure, job: Job?) {
        var metadata: Logger.Metadata = ["error": "\(failure)", "place": "\(failure.place)"]
        if let job { metadata["job_id"] = "\(job.id)" }
        switch configuration.onStorageFailure {
        case .stop:
            let first = state.withLockedValue { state -> Bool in
                defer { state.halt = state.halt ?? failure }
                state.phase.advance(to: .draining)
                return state.halt == nil
            }
            if first { logger.error("storage failed; stopping: no more jobs are claimed", metadata: metadata) }
        case .pause:
            let delay = state.withLockedValue { state -> Duration in
                let failures = state.storageFailures.record(failure.description)
                let delay = configuration.failureBackoff.delay(afterAttempt: failures)
                state.pausedUntil = max(state.pausedUntil ?? .now, .now + delay)
                return delay
            }
            metadata["retry_in"] = "\(delay)"
            logger.error("storage failed; claiming paused", metadata: metadata)
        }
        metrics.recordStorageFailure()
        wake.signal()
    }

    /// A job's outcome was recorded: the storage works.
    func storageWorks() {
        state.withLockedValue { state in
            guard state.storageFailures.count > 0 else { return }
            state.storageFailures = FailureStreak()
            state.pausedUntil = nil
        }
    }

    private func waitForWorkOrWake() async {
        let timeout = configuration.pollInterval
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await self.queue.waitForWork(timeout: timeout) }
            group.addTask { _ = await self.wake.wait(timeout: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func start(_ job: Job) {
        let acquired = state.withLockedValue { state -> Bool in
            guard state.phase.acceptsNewJobs else { return false }
            return state.slots.acquire(job)
        }
        guard acquired else {
            // Shutdown began during the claim (or a bookkeeping bug): give the job straight back.
            Task { _ = try? await self.queue.release(jobID: job.id, owner: self.configuration.owner) }
            return
        }
        metrics.recordBusySlots(state.withLockedValue { $0.slots.inUse })
        let task = Task {
            await self.process(job)
            let busy = self.state.withLockedValue { state -> Int in
                state.slots.finish(job.id)
                state.tasks.removeValue(forKey: job.id)
                return state.slots.inUse
            }
            self.metrics.recordBusySlots(busy)
            self.wake.signal()
        }
        state.withLockedValue { state in
            if state.slots.running[job.id] != nil { state.tasks[job.id] = task }
        }
    }

    private func finishRunningJobs(grace: Duration) async {
        state.withLockedValue { $0.phase.advance(to: .draining) }
        let deadline = ContinuousClock.now.advanced(by: grace)
        while state.withLockedValue({ $0.slots.inUse }) > 0 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            _ = await wake.wait(timeout: min(remaining, .milliseconds(100)))
        }
        let leftovers = state.withLockedValue { state -> [(Job, Task<Void, Never>?)] in
            state.phase.advance(to: .releasing)
            let jobs = state.slots.releaseAll()
            let tasks = state.tasks
            return jobs.map { ($0, tasks[$0.id]) }
        }
        for (job, task) in leftovers {
            do {
                try await queue.release(jobID: job.id, owner: configuration.owner)
                metrics.recordOutcome("released")
                logger.notice(
                    "job released at shutdown",
                    metadata: ["job_id": "\(job.id)", "campaign": "\(job.campaign)", "state": "queued"])
            } catch {
                logger.error(
                    "could not release job at shutdown; its lease will expire",
                    metadata: ["job_id": "\(job.id)", "campaign": "\(job.campaign)", "error": "\(error)"])
            }
            task?.cancel()
        }
        state.withLockedValue { $0.phase.advance(to: .stopped) }
    }

    private func rescueLoop() async {
        while !Task.isCancelled {
            do {
                let rescued = try await queue.rescueExpiredLeases()
                for job in rescued {
                    logger.warning(
                        "rescued job with expired lease",
                        metadata: ["job_id": "\(job.id)", "campaign": "\(job.campaign)", "state": "\(job.state)"])
                }
            } catch {
                if Task.isCancelled { return }
                logger.error("rescue failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: configuration.rescueInterval)
        }
    }
}
