import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Kept media is checked before it is shipped as it is")
struct KeptMediaCheckTests {
    /// A 10 s MP3 (128 kbit/s stereo) and a 6 s H.264/AAC MP4 with its index first (faststart,
    /// so a cut file still opens), made by the ffmpeg CLI.
    static func mp3(in folder: URL) throws -> URL {
        try MediaFactory.make(
            "clean.mp3", in: folder, ["-f", "lavfi", "-i", "sine=frequency=440:duration=10", "-ac", "2", "-b:a", "128k"])
    }

    static func mp4(in folder: URL) throws -> URL {
        try MediaFactory.make(
            "clean.mp4", in: folder,
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=duration=6",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest",
            ])
    }

    /// A copy of `file` named `name` with `change` applied to its bytes.
    static func damaged(_ file: URL, _ name: String, _ change: (inout Data) -> Void) throws -> URL {
        var data = try Data(contentsOf: file)
        change(&data)
        let url = file.deletingLastPathComponent().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test("clean MP3 and MP4 files pass the check and are kept byte for byte")
    func cleanKept() throws {
        let folder = try Fixtures.temporaryFolder()
        for input in [try Self.mp3(in: folder), try Self.mp4(in: folder)] {
            let out = folder.appendingPathComponent("out-\(input.pathExtension)")
            let item = MediaPipelineTests.process(input, out: out)
            #expect(item.status == .ok, "\(item.error?.message ?? "")")
            let media = try #require(item.attachment(.media))
            #expect(media.media?.action == .kept)
            #expect(try Data(contentsOf: MediaPipelineTests.file(media, in: out)) == Data(contentsOf: input))
        }
    }

    @Test("an MP3 whose middle is overwritten with garbage fails as corrupt_input, naming the packets that do not decode")
    func mp3WithGarbage() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try Self.damaged(try Self.mp3(in: folder), "garbage.mp3") { data in
            var state: UInt64 = 3
            let middle = data.count / 2
            for at in middle..<(middle + 20_000) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                data[at] = UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        let out = folder.appendingPathComponent("out")
        let item = MediaPipelineTests.process(input, out: out)
        #expect(item.status == .failed)
        #expect(item.error?.code == .corruptInput && item.error?.code.isTransient == false)
        let message = try #require(item.error?.message)
        #expect(message.contains("packets of the MP3 file do not decode"), "\(message)")
        #expect(message.hasSuffix("not shipped as it is"), "\(message)")
        #expect(item.attachments.isEmpty)
        try MediaPipelineTests.expectNoLeftovers(out)
    }

    @Test("an MP4 cut in the middle of its media data fails as corrupt_input: its data ends before it says")
    func mp4TruncatedMidData() throws {
        let folder = try Fixtures.temporaryFolder()
        let input = try Self.damaged(try Self.mp4(in: folder), "cut.mp4") { data in
            data = data.prefix(data.count * 6 / 10)
        }
        let out = folder.appendingPathComponent("out")
        let item = MediaPipelineTests.process(input, out: out)
        #expect(item.status == .failed)
        #expect(item.error?.code == .corruptInput)
        let message = try #require(item.error?.message)
        #expect(message.contains("the MP4 file's data ends after") && message.contains("of the 6.0 s it says it lasts"), "\(message)")
        #expect(item.attachments.isEmpty)
        try MediaPipelineTests.expectNoLeftovers(out)
    }

    @Test(
        "the rule: a demux error, more than 2 packets that do not decode, or data ending early fail; an estimated duration is not held against a file"
    )
    func rule() {
        let clean = KeptMediaCheck.Findings(
            durationSeconds: 10, durationEstimated: false, endSeconds: 10, demuxError: nil, decodedPackets: 383,
            failedPackets: 0, firstFailureSeconds: nil, firstFailure: "")
        #expect(KeptMediaCheck.problem(clean, container: "MP3") == nil)
        var found = clean
        found.failedPackets = 2
        #expect(KeptMediaCheck.problem(found, container: "MP3") == nil, "an edge frame or two")
        found.failedPackets = 3
        found.firstFailureSeconds = 5
        found.firstFailure = "mp3float: Invalid data found when processing input"
        #expect(
            KeptMediaCheck.problem(found, container: "MP3")
                == "3 of the first 383 packets of the MP3 file do not decode (the first at 5.0 s: mp3float: Invalid data found when processing input)"
        )
        found = clean
        found.endSeconds = 9.6
        #expect(KeptMediaCheck.problem(found, container: "MP4") == nil, "within half a second")
        found.endSeconds = 9.4
        #expect(KeptMediaCheck.problem(found, container: "MP4") == "the MP4 file's data ends after 9.4 s of the 10.0 s it says it lasts")
        found.durationEstimated = true
        #expect(KeptMediaCheck.problem(found, container: "MP3") == nil, "a duration from the bit rate says nothing")
        found = clean
        found.demuxError = "Invalid data found when processing input"
        found.endSeconds = 3.6
        #expect(
            KeptMediaCheck.problem(found, container: "MP4")
                == "the MP4 file breaks off after 3.6 s of 10.0 s: Invalid data found when processing input")
        let plan = KeptMediaCheck(video: 0, audio: nil)
        #expect(plan.videoDecodeSeconds == KeptMediaCheck.videoDecodeSeconds && plan.audioDecodeSeconds == 0)
    }
}
