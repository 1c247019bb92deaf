import Foundation

/// Runs blocking C work (libvips, FFmpeg) on a thread of its own instead of Swift's cooperative
/// pool, so a worker's slots never starve the event loops and timers.
enum BlockingWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
