import PushMediaModel

/// Recognises an item that failed because its process met its memory limit: under `RLIMIT_AS`
/// an allocation or a thread's stack is refused, and libvips, FFmpeg or libjpeg report that as
/// a failure of the item in their own words ("vips_tracked: out of memory", "Cannot allocate
/// memory", "Error creating thread", "Insufficient memory"), which would otherwise read as a
/// damaged file (`corrupt_input`).
enum MemoryLimitFailure {
    /// The words the libraries report a refused allocation or thread with (lowercase).
    /// Not EAGAIN's "Resource temporarily unavailable", which a process or cgroup limit gives too.
    static let phrases = [
        "out of memory", "cannot allocate memory", "insufficient memory", "error creating thread", "unable to create thread",
        "memory allocation failed", "bad_alloc",
    ]

    /// The codes a refused allocation shows up as.
    static let codes: Set<ErrorCode> = [.corruptInput, .encodeFailed, .internalError, .unsupportedType, .noMediaStream]

    /// `item` as `memory_limit`, naming the limit, when it failed in words of a refused
    /// allocation while its process had a limit of `limitMB` in force (0: none, and nothing
    /// changes). The words are the library's own: a decoder that refuses an absurd size by
    /// itself with ENOMEM reads the same, and is named the limit's too.
    static func classify(_ item: Item, limitMB: Int) -> Item {
        guard limitMB > 0, item.status == .failed, let error = item.error, codes.contains(error.code) else { return item }
        let message = error.message.lowercased()
        guard phrases.contains(where: message.contains) else { return item }
        var item = item
        item.error = ItemError(
            .memoryLimit,
            "the item needed more memory than its process may grow by (--item-memory-limit \(limitMB) MB, PUSHMEDIA_ITEM_MEMORY_LIMIT_MB): "
                + "\(error.message); raise the limit, or give 0 for none")
        return item
    }
}
