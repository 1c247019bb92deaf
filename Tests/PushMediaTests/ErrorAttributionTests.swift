import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// libvips has one error buffer per process; ``Vips/attributed(until:_:)`` re-runs libvips work
/// that libvips itself reported failing, alone, so its message is its own, and re-runs nothing
/// else.
@Suite("libvips error attribution")
struct ErrorAttributionTests {
    /// Runs `body` through `Vips.attributed`, counting its runs; the error it ended with, if any.
    static func attributed(
        until deadline: Deadline? = nil, _ body: () throws -> Void
    ) -> (runs: Int, error: (any Error)?) {
        var runs = 0
        do {
            try Vips.attributed(until: deadline) {
                runs += 1
                try body()
            }
            return (runs, nil)
        } catch {
            return (runs, error)
        }
    }

    @Test("a libvips failure is run once more, alone, and keeps libvips' message")
    func libvipsFailureRunsAgain() throws {
        let image = try Vips.Image.noise(width: 8, height: 8)
        let (runs, error) = Self.attributed { _ = try image.extractArea(left: 100, top: 100, width: 10, height: 10) }
        #expect(runs == 2)
        let failure = try #require(error as? Vips.Error)
        #expect(failure.message.contains("extract_area"), "\(failure.message)")
    }

    @Test("a failure that is not libvips' is not run again, whatever its code")
    func otherFailuresRunOnce() throws {
        try Vips.start()
        for code in [ErrorCode.corruptInput, .encodeFailed, .tooManyPixels] {
            let (runs, error) = Self.attributed { throw ItemError(code, "not libvips") }
            #expect(runs == 1)
            #expect((error as? ItemError)?.code == code)
        }
        // A file that cannot be opened fails before libvips sees it.
        let (runs, error) = Self.attributed { _ = try Vips.Source(path: "/nonexistent/\(UUID().uuidString)") }
        #expect(runs == 1)
        #expect((error as? Vips.Error)?.operation == "open")
    }

    @Test("a libvips failure after the deadline is not run again")
    func pastDeadlineRunsOnce() throws {
        let image = try Vips.Image.noise(width: 8, height: 8)
        let (runs, error) = Self.attributed(until: .now - .seconds(1)) {
            _ = try image.extractArea(left: 100, top: 100, width: 10, height: 10)
        }
        #expect(runs == 1)
        #expect(error is Vips.Error)
    }

    @Test("failing concurrently, each piece of work reports its own libvips message")
    func concurrentFailuresKeepTheirMessages() throws {
        let image = try Vips.Image.noise(width: 8, height: 8)
        let garbage = Data((0..<64).map { UInt8($0) })
        let results = ResultBox(count: 64)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let (_, error) = Self.attributed {
                if index.isMultiple(of: 2) {
                    _ = try image.extractArea(left: 100, top: 100, width: 10, height: 10)
                } else {
                    _ = try Vips.Image.decode(garbage).copyMemory()
                }
            }
            results.set(index, (error as? Vips.Error)?.message)
        }
        for (index, message) in results.values.enumerated() {
            let text = try #require(message, "work \(index) did not fail with a libvips error")
            if index.isMultiple(of: 2) {
                #expect(text.contains("extract_area"), "\(index): \(text)")
            } else {
                #expect(!text.contains("extract_area") && !text.isEmpty, "\(index): \(text)")
            }
        }
    }

    /// Results written from several threads.
    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String?]
        init(count: Int) { stored = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: String?) { lock.withLock { stored[index] = value } }
        var values: [String?] { lock.withLock { stored } }
    }
}
