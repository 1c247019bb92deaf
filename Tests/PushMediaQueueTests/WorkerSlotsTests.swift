import Foundation
import PushMediaQueue
import Testing

@Suite("Worker slots and shutdown phases")
struct WorkerSlotsTests {
    func job(_ id: JobID) -> Job {
        Job(id: id, campaign: "c", source: "s\(id)", profile: "p", runAt: .distantPast, createdAt: .distantPast, updatedAt: .distantPast)
    }

    @Test("slots fill up, free, and release what still runs")
    func slots() {
        var slots = WorkerSlots(capacity: 2)
        #expect(slots.free == 2)
        let first = slots.acquire(job(1))
        let duplicate = slots.acquire(job(1))
        let second = slots.acquire(job(2))
        let overflow = slots.acquire(job(3))
        #expect(first && second)
        #expect(!duplicate, "the same job twice")
        #expect(!overflow, "full")
        #expect(slots.free == 0 && slots.inUse == 2)
        let finished = slots.finish(1)
        let finishedAgain = slots.finish(1)
        #expect(finished && !finishedAgain)
        #expect(slots.free == 1)
        let released = slots.releaseAll()
        #expect(released.map(\.id) == [2])
        #expect(slots.isReleased(2) && !slots.isReleased(1))
        #expect(WorkerSlots(capacity: 0).capacity == 1)
    }

    @Test("phases only move forward")
    func phases() {
        var phase = WorkerShutdownPhase.running
        #expect(phase.acceptsNewJobs)
        phase.advance(to: .draining)
        #expect(!phase.acceptsNewJobs)
        phase.advance(to: .running)
        #expect(phase == .draining)
        #expect(phase.next == .releasing)
        phase.advance(to: .stopped)
        #expect(phase == .stopped && phase.next == .stopped)
    }
}
