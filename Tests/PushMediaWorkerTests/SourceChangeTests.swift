import Foundation
import PushMediaModel
import PushMediaQueue
import Testing

@testable import PushMediaWorker

/// When `process` runs again, which finished files count as changed (pure, no I/O).
@Suite("A finished file's source changed")
struct SourceChangeTests {
    let finished = Date(timeIntervalSince1970: 1_700_000_000)

    func job(_ state: JobState, bytes: Int?) throws -> Job {
        let item = Item(source: "a.jpg", sourceBytes: bytes, kind: .image, status: .ok)
        return Job(
            id: 1, campaign: "c", source: "a.jpg", profile: "p", state: state, runAt: finished,
            result: try item.jsonData(), createdAt: finished, updatedAt: finished,
            finishedAt: state.isTerminal ? finished : nil)
    }

    @Test("modified after the job finished: changed")
    func newer() throws {
        #expect(QueuedBatch.sourceChanged(job: try job(.succeeded, bytes: 100), size: 100, modified: finished + 1))
    }

    @Test("an older modification time with another size (unpacked, cp -p): changed")
    func olderOtherSize() throws {
        #expect(QueuedBatch.sourceChanged(job: try job(.succeeded, bytes: 100), size: 101, modified: finished - 3600))
        #expect(QueuedBatch.sourceChanged(job: try job(.failed, bytes: 100), size: 99, modified: finished - 3600))
    }

    @Test("same size, not modified since: unchanged; unknown size or time: decided by what is known")
    func unchanged() throws {
        #expect(!QueuedBatch.sourceChanged(job: try job(.succeeded, bytes: 100), size: 100, modified: finished - 3600))
        #expect(!QueuedBatch.sourceChanged(job: try job(.succeeded, bytes: 100), size: 100, modified: finished))
        #expect(!QueuedBatch.sourceChanged(job: try job(.failed, bytes: nil), size: 5, modified: finished - 1))
        #expect(QueuedBatch.sourceChanged(job: try job(.failed, bytes: nil), size: 5, modified: finished + 1))
        #expect(!QueuedBatch.sourceChanged(job: try job(.succeeded, bytes: 100), size: nil, modified: nil))
    }

    @Test("a job not finished is never 'changed' (it runs anyway)")
    func unfinished() throws {
        #expect(!QueuedBatch.sourceChanged(job: try job(.running, bytes: 100), size: 1, modified: finished + 10))
    }
}
