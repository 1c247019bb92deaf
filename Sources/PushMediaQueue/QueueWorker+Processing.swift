import Foundation
import Logging

extension QueueWorker {
    /// Runs the handler on one claimed job (heartbeating meanwhile) and reports its outcome.
    func process(_ job: Job) async {
        var jobLogger = self.logger
        jobLogger[metadataKey: "job_id"] = "\(job.id)"
        jobLogger[metadataKey: "campaign"] = "\(job.campaign)"
        let logger = jobLogger
        let started = ContinuousClock.now
        let handler = self.handler
        let result: Result<JobOutcome, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.heartbeatLoop(job, logger: logger) }
            let result: Result<JobOutcome, any Error>
            do {
                result = .success(try await handler(job))
            } catch {
                result = .failure(error)
            }
            group.cancelAll()
            return result
        }
        let elapsed = ContinuousClock.now - started
        if state.withLockedValue({ $0.slots.isReleased(job.id) }) {
            logger.info("released job's handler ended; outcome discarded", metadata: ["state": "queued"])
            return
        }
        let owner = configuration.owner
        if case .failure(let thrown) = result, let failure = thrown as? StorageFailure {
            // Not the job's fault: it goes back uncounted, and the worker stops or pauses.
            do {
                try await queue.release(jobID: job.id, owner: owner)
                metrics.recordOutcome("released")
            } catch {
                logger.error("could not give back a job after a storage failure; its lease will expire", metadata: ["error": "\(error)"])
            }
            storageFailed(failure, job: job)
            return
        }
        var kind = configuration.metricsKind(job)
        var metadata: Logger.Metadata = [
            "source": "\(job.source)", "attempt": "\(job.attempts)",
            "duration_ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ]
        do {
            let stored: Job
            switch result {
            case .success(.succeeded(let data, let outcomeKind)):
                kind = outcomeKind ?? kind
                metadata.merge(configuration.resultMetadata(data)) { _, new in new }
                stored = try await queue.complete(jobID: job.id, owner: owner, result: data)
            case .success(.failed(let data, let error, let outcomeKind)):
                kind = outcomeKind ?? kind
                metadata.merge(configuration.resultMetadata(data)) { _, new in new }
                metadata["error_code"] = "\(error.code)"
                stored = try await queue.fail(jobID: job.id, owner: owner, error: error, result: data)
            case .failure(let thrown):
                let error = Self.jobError(from: thrown)
                metadata["error_code"] = "\(error.code)"
                metadata["error"] = "\(error.message)"
                if let queueError = thrown as? any QueueJobError, queueError.isPermanent {
                    stored = try await queue.fail(jobID: job.id, owner: owner, error: error, result: nil)
                } else {
                    let delay = configuration.retryPolicy.delay(afterAttempt: job.attempts)
                    stored = try await queue.failTransiently(jobID: job.id, owner: owner, error: error, retryDelay: delay)
                    if stored.state == .retrying { metadata["retry_at"] = "\(stored.runAt)" }
                }
            }
            storageWorks()
            metadata["state"] = "\(stored.state)"
            metrics.recordOutcome(stored.state.rawValue)
            metrics.recordDuration(elapsed, kind: kind)
            // Logged once the outcome is stored, so a line never names a job the queue lost.
            logger.log(level: Self.logLevel(for: stored.state), Self.logMessage(for: stored.state), metadata: metadata)
        } catch JobQueueError.leaseLost {
            metadata["state"] = "lease_lost"
            metrics.recordOutcome("lease_lost")
            logger.warning("job lease lost; outcome discarded", metadata: metadata)
        } catch {
            metadata["state"] = "report_failed"
            metadata["report_error"] = "\(error)"
            metrics.recordOutcome("report_failed")
            logger.error("could not record job outcome; the lease will expire and the job be rescued", metadata: metadata)
            if let failure = error as? StorageFailure { storageFailed(failure, job: nil) }
        }
    }

    /// Extends the lease every heartbeat interval until cancelled or the lease is lost.
    func heartbeatLoop(_ job: Job, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.heartbeatInterval)
            } catch {
                return
            }
            do {
                let held = try await queue.heartbeat(
                    jobID: job.id, owner: configuration.owner, leaseDuration: configuration.leaseDuration)
                if !held {
                    logger.warning("job lease lost while running")
                    return
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// How loudly a job's new state is logged. A job that succeeded, or failed on its input, is
    /// an outcome (the queue and the manifest keep it): `info`, the operator's record of every
    /// finished job. A retry is routine (`notice`); a job that ran out of attempts may need an
    /// operator (`warning`).
    static func logLevel(for state: JobState) -> Logger.Level {
        switch state {
        case .retrying: .notice
        case .dead: .warning
        default: .info
        }
    }

    /// The log line of a job's new state: `job finished` for succeeded and failed jobs.
    static func logMessage(for state: JobState) -> Logger.Message {
        state == .succeeded || state == .failed ? "job finished" : "job \(state)"
    }

    /// The job error recorded for a thrown error.
    static func jobError(from error: any Error) -> JobError {
        if let queueError = error as? any QueueJobError {
            return JobError(code: queueError.code, message: queueError.message)
        }
        if error is CancellationError {
            return JobError(code: "cancelled", message: "the handler was cancelled")
        }
        return JobError(code: "transient_error", message: "\(error)")
    }
}
