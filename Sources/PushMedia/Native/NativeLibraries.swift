/// Versions of the C libraries PushMedia is linked against, for `pushmedia version` and logs.
public enum NativeLibraries {
    public static var versions: [String: String] {
        var versions = FFmpeg.libraryVersions
        versions["libvips"] = Vips.version
        return versions
    }
}
