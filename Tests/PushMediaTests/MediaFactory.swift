import Foundation

/// Makes movie and audio inputs with the ffmpeg CLI (tests only: PushMedia links the libraries),
/// and reads outputs back with ffprobe, so tests check files, not what the code says it wrote.
enum MediaFactory {
    /// Runs `ffmpeg -y <arguments> <output>` and returns the output's URL.
    static func make(_ name: String, in folder: URL, _ arguments: [String]) throws -> URL {
        let output = folder.appendingPathComponent(name)
        let result = try CommandRunner.run(
            "/usr/bin/env", ["ffmpeg", "-hide_banner", "-v", "error", "-y"] + arguments + [output.path])
        guard result.status == 0 else { throw Failure(message: "ffmpeg failed making \(name): \(result.error)") }
        return output
    }

    /// `audio/tone.mp3` with `photos/landscape.jpg` (1600×1000) as its ID3 cover art.
    static func mp3WithCoverArt(in folder: URL) throws -> URL {
        try make(
            "cover.mp3", in: folder,
            [
                "-i", Fixtures.url("audio/tone.mp3").path, "-i", Fixtures.url("photos/landscape.jpg").path,
                "-map", "0:a", "-map", "1:v", "-c", "copy", "-id3v2_version", "3", "-disposition:v", "attached_pic",
            ])
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// What ffprobe says about a file: format and per-stream fields.
    struct Probed {
        var formatName: String
        var duration: Double
        var streams: [[String: Any]]

        var video: [String: Any]? { streams.first { $0["codec_type"] as? String == "video" } }
        var audio: [String: Any]? { streams.first { $0["codec_type"] as? String == "audio" } }
        /// Clockwise rotation from the display matrix (ffprobe prints counter-clockwise).
        var rotation: Int {
            let sideData = video?["side_data_list"] as? [[String: Any]] ?? []
            let ccw = sideData.compactMap { $0["rotation"] as? Int }.first ?? 0
            return ((-ccw) % 360 + 360) % 360
        }
    }

    static func probe(_ file: URL) throws -> Probed {
        let result = try CommandRunner.run(
            "/usr/bin/env", ["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", file.path])
        guard result.status == 0,
            let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            let format = json["format"] as? [String: Any]
        else { throw Failure(message: "ffprobe cannot read \(file.lastPathComponent): \(result.error)") }
        return Probed(
            formatName: format["format_name"] as? String ?? "",
            duration: Double(format["duration"] as? String ?? "") ?? 0,
            streams: json["streams"] as? [[String: Any]] ?? [])
    }

    /// A hash of one stream's packets (`-c copy`): equal hashes mean the stream was not re-encoded.
    static func packetHash(_ file: URL, stream: String) throws -> String {
        let result = try CommandRunner.run(
            "/usr/bin/env", ["ffmpeg", "-v", "error", "-i", file.path, "-map", "0:\(stream):0", "-c", "copy", "-f", "md5", "-"])
        guard result.status == 0 else { throw Failure(message: "ffmpeg cannot hash \(file.lastPathComponent): \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
