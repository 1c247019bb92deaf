import CVips
import Foundation

/// Versions of the C libraries PushMedia uses (libvips linked, FFmpeg's opened on first use), for
/// `pushmedia version` and logs.
public enum NativeLibraries {
    /// libvips' version and FFmpeg's libraries' (`["libvips": "8.14.1", "libavformat": …]`).
    /// FFmpeg's are opened for this (PushMedia loads them on first use): throws an ``ItemError``
    /// naming what is missing when they cannot be.
    public static func versions() throws -> [String: String] {
        var versions = try FFmpeg.libraryVersions()
        versions["libvips"] = Vips.version
        return versions
    }
}
