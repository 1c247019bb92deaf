import CPushMediaShims
import CVips
import Foundation

extension Vips {
    /// libvips keeps one error buffer for the whole process, so when items run concurrently one
    /// item's failure text can land in another's message. Work that calls libvips runs under the
    /// shared side of this lock; to learn a failure's true message, the failing step runs once
    /// more under the exclusive side, when no other libvips work is in flight.
    static let errorAttribution = ReadWriteLock()

    /// Runs `body` alongside other libvips work.
    static func shared<T>(_ body: () throws -> T) rethrows -> T {
        try errorAttribution.withReadLock(body)
    }

    /// Runs `body` with no other libvips work in flight and a clean error buffer.
    static func exclusive<T>(_ body: () throws -> T) rethrows -> T {
        try errorAttribution.withWriteLock {
            vips_error_clear()
            return try body()
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
