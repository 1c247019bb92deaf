import CPushMediaShims
import CVips
import Foundation

/// Versions of the C libraries PushMedia uses (libvips linked, FFmpeg's opened on first use), for
/// `pushmedia version` and logs, and process-wide settings for them.
public enum NativeLibraries {
    /// Caps glibc's malloc arenas for a long batch or worker process. glibc gives busy threads
    /// arenas of their own and keeps their freed memory, so with libvips' and the batch's threads
    /// RSS crept up ~30 % over 1,000 images; two arenas keep it flat (libvips' and imgproxy's
    /// advice). `MALLOC_ARENA_MAX` in the environment wins. Call before starting threads.
    public static func limitMemoryArenas(_ count: Int = 2) {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = pm_limit_malloc_arenas(Int32(count))
    }

    /// Whether PushMedia's C was built with AddressSanitizer (`PUSHMEDIA_SANITIZE_C=1`, as
    /// scripts/test builds it). ASan reserves terabytes of address space for its shadow memory,
    /// so an address-space limit has to count from what is mapped at start.
    public static var isAddressSanitized: Bool { pm_address_sanitized() != 0 }

    /// libvips' version and FFmpeg's libraries' (`["libvips": "8.14.1", "libavformat": …]`).
    /// FFmpeg's are opened for this (PushMedia loads them on first use): throws an ``ItemError``
    /// naming what is missing when they cannot be.
    public static func versions() throws -> [String: String] {
        var versions = try FFmpeg.libraryVersions()
        versions["libvips"] = Vips.version
        return versions
    }
}
