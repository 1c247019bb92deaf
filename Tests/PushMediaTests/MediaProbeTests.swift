import Foundation
import PushMediaModel
import Testing

@testable import PushMedia

@Suite("Movie and audio probing (libavformat)")
struct MediaProbeTests {
    static func probe(_ source: String) throws -> Item {
        try ImagePipelineTests.process(source).0
    }

    /// What the ffprobe CLI says about a stream, to check against an independent reader.
    static func ffprobe(_ path: String, _ entries: String) throws -> String {
        let result = try CommandRunner.run(
            "/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=nw=1:nk=1", path])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("an MP4 clip: container, duration, streams, frame rate, pixel format")
    func mp4() throws {
        let item = try Self.probe("video/black-start.mp4")
        #expect(item.kind == .video)
        let probe = try #require(item.probe)
        #expect(probe.container?.contains("mp4") == true)
        #expect(abs((probe.durationSeconds ?? 0) - 3) < 0.1)
        #expect(probe.width == 320 && probe.height == 180 && probe.rotation == nil)
        let streams = try #require(probe.streams)
        let video = try #require(streams.first { $0.type == "video" })
        #expect(video.codec == "h264" && video.pixelFormat == "yuv420p")
        #expect(abs((video.frameRate ?? 0) - 25) < 0.01)
        let audio = try #require(streams.first { $0.type == "audio" })
        #expect(audio.codec == "aac" && audio.sampleRate == 44100 && audio.channels == 1)
        #expect((probe.bitRate ?? 0) > 0)
    }

    @Test("a rotated phone MOV: display rotation as ffprobe sees it, portrait displayed size")
    func rotatedMOV() throws {
        let item = try Self.probe("video/portrait.mov")
        let probe = try #require(item.probe)
        #expect(probe.format == "quicktime")
        // ffprobe prints the display matrix's counter-clockwise angle; PushMedia stores clockwise.
        let counterClockwise = try #require(Int(try Self.ffprobe(Fixtures.url("video/portrait.mov").path, "stream_side_data=rotation")))
        #expect(probe.rotation == ((-counterClockwise) % 360 + 360) % 360)
        #expect(probe.width == 180 && probe.height == 320, "portrait as displayed")
        #expect(probe.streams?.first { $0.type == "video" }?.width == 320, "stored landscape")
    }

    @Test("audio: MP3 and Opus in Ogg", arguments: [("audio/tone.mp3", "mp3", "mp3"), ("audio/tone.opus.ogg", "ogg", "opus")])
    func audio(source: String, format: String, codec: String) throws {
        let item = try Self.probe(source)
        #expect(item.kind == .audio)
        #expect(item.probe?.format == format)
        #expect(item.probe?.streams?.first?.codec == codec)
        #expect(abs((item.probe?.durationSeconds ?? 0) - 2) < 0.1)
        #expect(item.probe?.hasCoverArt == false)
    }

    @Test("a truncated MP4 fails as corrupt_input with FFmpeg's message")
    func truncated() throws {
        let item = try Self.probe("broken/truncated.mp4")
        #expect(item.error?.code == .corruptInput)
        #expect(item.error?.message.contains("FFmpeg") == true)
    }

    @Test("classification: cover art alone is audio's, no usable stream is no_media_stream, quarter turns swap sides")
    func classify() throws {
        var cover = MediaStream(index: 1, type: "video", codec: "mjpeg")
        cover.width = 500
        cover.height = 500
        cover.coverArt = true
        var sound = MediaStream(index: 0, type: "audio", codec: "mp3")
        sound.sampleRate = 44100
        let (kind, probe) = try MediaClassifier.classify(MediaDescription(container: "mp3", streams: [sound, cover]), format: .mp3)
        #expect(kind == .audio && probe.hasCoverArt == true)

        let subtitles = MediaDescription(container: "mov", streams: [MediaStream(index: 0, type: "subtitle", codec: "mov_text")])
        do {
            _ = try MediaClassifier.classify(subtitles, format: .mp4)
            Issue.record("a subtitle-only file was accepted")
        } catch let error as ItemError {
            #expect(error.code == .noMediaStream)
            #expect(error.message.contains("subtitle mov_text"))
        }

        var video = MediaStream(index: 0, type: "video", codec: "h264")
        video.width = 1920
        video.height = 1080
        video.rotation = 270
        let (_, rotated) = try MediaClassifier.classify(MediaDescription(container: "mov", streams: [video]), format: .quicktime)
        #expect(rotated.width == 1080 && rotated.height == 1920)
    }

    @Test("a real file with no audio or video stream fails as no_media_stream")
    func noMediaStream() throws {
        let folder = try Fixtures.temporaryFolder()
        let srt = folder.appendingPathComponent("s.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nhello\n".utf8).write(to: srt)
        let mp4 = folder.appendingPathComponent("subtitles.mp4")
        let made = try CommandRunner.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-i", srt.path, "-c:s", "mov_text", mp4.path])
        #expect(made.status == 0, "\(made.error)")
        let item = ItemProcessor(profile: .default, options: ProcessingOptions(outputDirectory: folder))
            .process(InputFile(path: mp4.path, source: "subtitles.mp4"))
        #expect(item.error?.code == .noMediaStream, "\(item.error?.message ?? "")")
    }
}
