import Foundation

/// Where the tests find the package, its committed fixtures and the programs built beside them,
/// and where they write.
public enum TestPaths {
    /// The package's folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The committed fixtures (`Fixtures/`).
    public static let fixtures = packageRoot.appendingPathComponent("Fixtures")

    /// Every committed fixture path, relative to `Fixtures/`, sorted (hidden files left out).
    public static func fixtureSources() throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: fixtures.path)
        var out: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: fixtures.appendingPathComponent(path).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue && !(path as NSString).lastPathComponent.hasPrefix(".") { out.append(path) }
        }
        return out.sorted()
    }

    /// A new empty folder under the system's temporary folder (scripts/test points that at a
    /// scratch folder it removes), named `PREFIX-NAME-RANDOM` with `name`'s letters and digits.
    public static func temporaryFolder(prefix: String, _ name: String) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The shipped command line, `pushmedia`, as built beside the tests.
    public static var pushmedia: String { executable("pushmedia") }

    /// The same commands with the tests' hooks (`pushmedia-testing`, ``ItemGate``).
    public static var pushmediaTesting: String { executable("pushmedia-testing") }

    /// The program `name` of this build: the test binary lives in `<build>/debug/` or inside
    /// `<build>/debug/*.xctest/…`, and the package's executables in `<build>/debug/`.
    static func executable(_ name: String) -> String {
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent(name).path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent(name).path
    }
}
