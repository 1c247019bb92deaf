import CVips
import CVipsShims
import Foundation

extension Vips {
    /// Runs a piece of libvips work so that a failure's message is its own.
    ///
    /// libvips keeps one error buffer for the whole process, and items run concurrently on
    /// several threads, so the text a failing call takes may be another item's. Every piece of
    /// libvips work runs inside this function, under the shared side of a read-write lock. When
    /// libvips itself reports a failure during `body` (``takeError()`` was called on this thread),
    /// `body` runs once more under the exclusive side, with a clean buffer and no other libvips
    /// work in flight, so what it reports is its own; if it now succeeds, so much the better.
    /// Failures that do not come from libvips (a file that cannot be opened, an item error
    /// thrown by `body`'s own checks) are never re-run, and neither is a failure after
    /// `deadline`: the deadline stopped that work, and it would stop again.
    ///
    /// `body` must hold only libvips work and be safe to run twice: it builds its images from
    /// its inputs and returns them, and changes nothing else. Calls do not nest (an inner call
    /// runs its body directly, inside the outer one's lock).
    static func attributed<T>(until deadline: Deadline? = nil, _ body: () throws -> T) throws -> T {
        let thread = AttributionState.current
        if thread.depth > 0 { return try body() }
        thread.depth += 1
        defer { thread.depth -= 1 }
        thread.libvipsFailed = false
        do {
            return try errorAttribution.withReadLock(body)
        } catch {
            let stoppedByDeadline = deadline?.hasPassed ?? false
            guard thread.libvipsFailed, !stoppedByDeadline else { throw error }
            thread.libvipsFailed = false
            return try errorAttribution.withWriteLock {
                vips_error_clear()
                return try body()
            }
        }
    }

    /// The lock behind ``attributed(until:_:)``.
    private static let errorAttribution = ReadWriteLock()

    /// Called by ``takeError()``: libvips reported a failure on this thread.
    static func noteLibraryFailure() {
        AttributionState.current.libvipsFailed = true
    }

    /// Per thread: whether an ``attributed(until:_:)`` call is running, and whether libvips
    /// reported a failure in it.
    private final class AttributionState {
        var depth = 0
        var libvipsFailed = false

        static let key = "PushMedia.Vips.AttributionState"

        static var current: AttributionState {
            let dictionary = Thread.current.threadDictionary
            if let state = dictionary[key] as? AttributionState { return state }
            let state = AttributionState()
            dictionary[key] = state
            return state
        }
    }
}

/// A pthread read-write lock that prefers writers (so the exclusive side is never starved).
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    func withWriteLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
