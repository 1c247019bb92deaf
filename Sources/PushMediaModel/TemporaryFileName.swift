import Foundation

/// The names PushMedia gives files while it writes them, before the rename that publishes them:
/// hidden, with a UUID, so that no reader takes one for an output and two writers never share
/// one. A run sweeps the ones a killed run left by ``isTemporary(_:)``, so every writer makes its
/// names here.
public enum TemporaryFileName {
    /// `.<name>.<UUID>.tmp`: a file being written before its rename to `name`.
    public static func beside(_ name: String) -> String { ".\(name).\(UUID().uuidString).tmp" }

    /// `.pushmedia-<UUID>.<ext>`: media being made by FFmpeg, which picks its muxer by `ext`.
    public static func media(extension ext: String) -> String { ".pushmedia-\(UUID().uuidString).\(ext)" }

    /// Whether `name` is a name made by ``beside(_:)`` or ``media(extension:)``.
    public static func isTemporary(_ name: String) -> Bool {
        if name.hasPrefix(".pushmedia-") {
            return UUID(uuidString: String(name.dropFirst(".pushmedia-".count).prefix { $0 != "." })) != nil
        }
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let stem = name.dropLast(".tmp".count)
        guard let dot = stem.lastIndex(of: "."), dot > stem.startIndex else { return false }
        return UUID(uuidString: String(stem[stem.index(after: dot)...])) != nil
    }
}
