import Foundation
import PushMediaTesting

/// Paths of the committed fixtures and of the package.
enum Fixtures {
    static let packageRoot = TestPaths.packageRoot
    static let root = TestPaths.fixtures

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A new empty folder under the system's temporary folder.
    static func temporaryFolder(_ name: String = #function) throws -> URL {
        try TestPaths.temporaryFolder(prefix: "pushmedia-tests", name)
    }

    /// Copies of the fixtures `relatives` in `folder`, each under its file name.
    static func copy(_ relatives: [String], into folder: URL) throws {
        for relative in relatives {
            try FileManager.default.copyItem(
                at: url(relative), to: folder.appendingPathComponent((relative as NSString).lastPathComponent))
        }
    }

    /// One of `Benchmarks/gif.py`'s seeded GIFs ("product-badge", "text-banner",
    /// "screen-recording", "noisy"; Pillow) written to `url`.
    static func benchmarkGIF(_ name: String, to url: URL, width: Int, height: Int, frames: Int) throws {
        let script = packageRoot.appendingPathComponent("Benchmarks/gif.py").path
        let make = try CommandRunner.run("/usr/bin/python3", [script, "--make", name, url.path, "\(width)", "\(height)", "\(frames)"])
        guard make.status == 0 else { throw FixtureError(message: "gif.py --make \(name): \(make.error)") }
    }

    struct FixtureError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Every committed fixture path, relative to `Fixtures/`.
    static func allSources() throws -> [String] { try TestPaths.fixtureSources() }
}
