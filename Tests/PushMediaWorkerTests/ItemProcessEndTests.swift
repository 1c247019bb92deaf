import Foundation
import PushMediaModel
import Testing

@testable import PushMediaWorker

/// The pure parts of crash containment, without a child process: how a child's end becomes the
/// item's error, the hard deadline a profile gives, and the frames on the pipe.
@Suite("Item processes: ends, deadlines, frames")
struct ItemProcessEndTests {
    @Test("a child's end becomes the item's error: a signal or an exit is worker_crashed (named), the deadline is timeout")
    func endsBecomeErrors() {
        let deadline = Duration.seconds(80)
        let segv = ItemProcess.End.signal(SIGSEGV).itemError(deadline: deadline)
        #expect(segv.code == .workerCrashed && segv.message.contains("SIGSEGV (signal 11)"))
        #expect(ItemProcess.End.signal(SIGSEGV).reason == "SIGSEGV" && ItemProcess.End.signal(64).reason == "signal 64")
        let exit = ItemProcess.End.exit(3).itemError(deadline: deadline)
        #expect(exit.code == .workerCrashed && exit.message.contains("status 3"))
        let late = ItemProcess.End.deadline.itemError(deadline: deadline)
        #expect(late.code == .timeout && late.message.contains("80 s"))
        let stuck = ItemProcess.End.startDeadline.itemError(deadline: deadline, startDeadline: .seconds(60))
        #expect(stuck.code == .workerCrashed && stuck.message.contains("had not started within 60 s"), "\(stuck.message)")
        #expect(ItemProcess.End.startDeadline.reason == "start_deadline")
        #expect(ItemProcess.End.brokenStream("x").itemError(deadline: deadline).code == .workerCrashed)
        #expect(MediaJobError.transientCodes.isSuperset(of: [.workerCrashed, .timeout]), "both are retried, counting the attempt")
    }

    @Test("the hard deadline lies past both of the profile's own time limits")
    func hardDeadline() {
        var profile = Profile.default
        #expect(ItemProcessPool.hardDeadline(for: profile) == .seconds(300 * 1.25 + 5))
        profile.limits.timeoutSeconds = 1
        profile.limits.mediaTimeoutSeconds = 1
        #expect(ItemProcessPool.hardDeadline(for: profile) == .milliseconds(6250))
        profile.limits.timeoutSeconds = 900
        #expect(ItemProcessPool.hardDeadline(for: profile) > .seconds(900))
    }

    @Test("frames: what is written is read back whole; the end of the stream between frames is nil, inside one an error")
    func frames() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let messages = [Data(), Data("{}".utf8), Data((0..<5000).map { UInt8($0 % 251) })]
        for message in messages { try ItemFrames.write(message, to: fds[1]) }
        // A frame that ends early: its length says 10, 3 bytes follow.
        var cut = UInt32(10).bigEndian
        _ = withUnsafeBytes(of: &cut) { write(fds[1], $0.baseAddress, 4) }
        _ = write(fds[1], "abc", 3)
        close(fds[1])
        for message in messages { #expect(try ItemFrames.read(from: fds[0]) == message) }
        #expect(throws: ItemFrames.BrokenStream.self) { try ItemFrames.read(from: fds[0]) }
        #expect(try ItemFrames.read(from: fds[0]) == nil)
    }
}
