import PushMediaModel
import Testing

/// The temporary names every writer makes are the ones a run sweeps, and no other name is.
@Suite("Temporary file names")
struct TemporaryFileNameTests {
    @Test("what beside(_:) and media(extension:) make is temporary; outputs, users' files and near misses are not")
    func recognised() {
        for name in ["manifest.json", "0123456789abcdef-media.mp4", ".x.tmp", "a.b.tmp"] {
            #expect(TemporaryFileName.isTemporary(TemporaryFileName.beside(name)), "\(name)")
        }
        for ext in ["mp4", "m4a"] {
            #expect(TemporaryFileName.isTemporary(TemporaryFileName.media(extension: ext)))
        }
        for name in [
            "manifest.json", ".notes.tmp", ".pushmedia-notes.txt", "x.0D7C1E2A-5B6F-4C3D-8E9F-0A1B2C3D4E5F.tmp",
            ".0D7C1E2A-5B6F-4C3D-8E9F-0A1B2C3D4E5F.tmp", ".pushmedia-", "",
        ] {
            #expect(!TemporaryFileName.isTemporary(name), "\(name)")
        }
    }
}
