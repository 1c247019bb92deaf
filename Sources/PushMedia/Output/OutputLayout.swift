import Foundation

/// How output files are laid out in the output folder (and under an S3 prefix).
///
/// A campaign folder of a few files keeps them side by side (``flat``); a catalogue of 10^4–10^6
/// items puts each file in a subfolder named by the first two hex digits of its content hash
/// (``sharded``: 256 folders, ~4,000 files each at 10^6 items × 4 files), so no folder grows
/// without bound. The manifest's `file` fields give the path either way, so readers never guess.
public enum OutputLayout: String, Sendable, Codable, CaseIterable {
    /// `<hash>-thumb.jpg` in the output folder itself.
    case flat
    /// `ab/<hash>-thumb.jpg`, `ab` being the hash's first two hex digits.
    case sharded

    /// `process` shards when its folder has more inputs than this (the worker always shards).
    public static let shardAbove = 1000

    /// The layout `process` uses for a folder of `inputs` files.
    public static func forBatch(inputs: Int) -> OutputLayout {
        inputs > shardAbove ? .sharded : .flat
    }

    /// The path of a file named `name` (which starts with its content hash), relative to the
    /// output folder.
    public func path(of name: String) -> String {
        switch self {
        case .flat: name
        case .sharded: "\(name.prefix(2))/\(name)"
        }
    }
}
