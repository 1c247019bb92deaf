import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

/// The folder walk and atomic writes (the batch runner itself is tested in PushMediaWorkerTests).
@Suite("Input scanning and atomic writes")
struct InputScannerTests {
    @Test("hidden files and an output folder inside the input folder are skipped")
    func scanning() throws {
        let folder = try Fixtures.temporaryFolder()
        try Data([1]).write(to: folder.appendingPathComponent(".DS_Store"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent(".git/config"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent("out/manifest.json"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("a/b"), withIntermediateDirectories: true)
        try Data([1]).write(to: folder.appendingPathComponent("a/b/c.jpg"))
        try Data([1]).write(to: folder.appendingPathComponent("z.png"))
        let sources = try InputScanner.files(in: folder, excluding: [folder.appendingPathComponent("out")]).map(\.source)
        #expect(sources == ["a/b/c.jpg", "z.png"])
    }

    @Test("special files and broken links are listed (they fail later, but are not lost); links to folders are not followed")
    func scanningSpecialFiles() throws {
        let folder = try Fixtures.temporaryFolder()
        try Data([1]).write(to: folder.appendingPathComponent("a.jpg"))
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("gone.jpg").path, withDestinationPath: "/nonexistent")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("sub/loop").path, withDestinationPath: "..")
        let sources = try InputScanner.files(in: folder).map(\.source)
        #expect(sources == ["a.jpg", "gone.jpg", "pipe.jpg"])
    }

    @Test("atomic writes leave no temporary files and replace the target whole")
    func atomicWrite() throws {
        let folder = try Fixtures.temporaryFolder()
        let target = folder.appendingPathComponent("manifest.json")
        try OutputStore.writeAtomically(Data("first".utf8), to: target)
        try OutputStore.writeAtomically(Data("second".utf8), to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["manifest.json"])
    }
}
