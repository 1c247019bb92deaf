import PushMediaModel
import Testing

@testable import PushMediaWorker

/// Which failures are the memory limit's (pure: the item and the limit in force).
@Suite("memory_limit: a refused allocation under the limit in force")
struct MemoryLimitFailureTests {
    static func failed(_ code: ErrorCode, _ message: String) -> Item {
        .failed(source: "a.png", error: ItemError(code, message))
    }

    @Test("the libraries' words for a refused allocation, under a limit in force, become memory_limit naming the flag")
    func refusedAllocations() {
        for message in [
            "cannot decode the png image: vips_tracked: out of memory --- size == 373MB", "FFmpeg: Cannot allocate memory",
            "Insufficient memory (case 4)", "Error creating thread", "std::bad_alloc",
        ] {
            let item = MemoryLimitFailure.classify(Self.failed(.corruptInput, message), limitMB: 512)
            #expect(item.error?.code == .memoryLimit, "\(message)")
            #expect(item.error?.message.contains("--item-memory-limit 512 MB") == true && item.error?.message.contains(message) == true)
        }
    }

    @Test("no limit in force, another code, other words, or an ok item: nothing changes")
    func unchanged() {
        let oom = Self.failed(.corruptInput, "vips_tracked: out of memory")
        #expect(MemoryLimitFailure.classify(oom, limitMB: 0) == oom)
        let timeout = Self.failed(.timeout, "out of memory while waiting")
        #expect(MemoryLimitFailure.classify(timeout, limitMB: 512) == timeout)
        // EAGAIN is also a process or cgroup limit's: not taken as memory.
        let again = Self.failed(.corruptInput, "Resource temporarily unavailable")
        #expect(MemoryLimitFailure.classify(again, limitMB: 512) == again)
        let damaged = Self.failed(.corruptInput, "premature end of JPEG image")
        #expect(MemoryLimitFailure.classify(damaged, limitMB: 512) == damaged)
        let ok = Item(source: "b.jpg", kind: .image, status: .ok)
        #expect(MemoryLimitFailure.classify(ok, limitMB: 512) == ok)
    }
}
