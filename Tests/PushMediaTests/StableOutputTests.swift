import Crypto
import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

@testable import PushMedia

/// Transcoded movies and audio are the same bytes on every run: the same input processed twice
/// into fresh folders gives byte-identical media files (so the content-addressed names agree too).
@Suite("Stable outputs: transcodes give the same bytes on every run")
struct StableOutputTests {
    /// Processes `input` into two fresh folders and returns the media file of each, with its hash.
    static func twice(_ input: URL, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> [(
        name: String, sha256: String
    )] {
        try (1...2).map { run in
            let out = folder.appendingPathComponent("out\(run)")
            let item = MediaPipelineTests.process(input, out: out)
            #expect(item.status == .ok, "\(item.error?.message ?? "")", sourceLocation: sourceLocation)
            let media = try #require(item.attachment(.media), sourceLocation: sourceLocation)
            #expect(media.media?.action == .transcoded, sourceLocation: sourceLocation)
            let bytes = try Data(contentsOf: try MediaPipelineTests.file(media, in: out))
            let hash = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            #expect(hash == media.sha256, "the manifest's hash is the file's", sourceLocation: sourceLocation)
            try MediaPipelineTests.expectNoLeftovers(out, sourceLocation: sourceLocation)
            return (media.file, hash)
        }
    }

    /// Movies that need a transcode: a VP9 WebM, and an MP4 whose video is MPEG-4 Part 2.
    static let movies: [(name: String, arguments: [String])] = [
        (
            "clip.webm",
            [
                "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=3", "-f", "lavfi", "-i", "sine=f=440:d=3",
                "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "500k", "-c:a", "libopus",
            ]
        ),
        (
            "part2.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=3", "-f", "lavfi", "-i", "sine=f=330:d=3",
                "-c:v", "mpeg4", "-q:v", "4", "-c:a", "aac",
            ]
        ),
    ]

    @Test("a movie transcoded twice (a VP9 WebM, an MPEG-4 Part 2 MP4) gives the same MP4 bytes", arguments: 0..<movies.count)
    func movie(_ index: Int) throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(Self.movies[index].name, in: folder, Self.movies[index].arguments)
        let runs = try Self.twice(input, in: folder)
        #expect(runs[0].sha256 == runs[1].sha256)
        #expect(runs[0].name == runs[1].name)
    }

    @Test("a WAV over the audio budget becomes the same M4A bytes twice")
    func wav() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try MediaFactory.make(
            "long.wav", in: folder, ["-f", "lavfi", "-i", "sine=f=440:d=32", "-ac", "2", "-ar", "44100", "-c:a", "pcm_s16le"])
        let inputBytes = try #require(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        #expect(inputBytes > 5_000_000)
        let runs = try Self.twice(input, in: folder)
        #expect(runs[0].sha256 == runs[1].sha256)
        #expect(runs[0].name == runs[1].name)
    }
}
