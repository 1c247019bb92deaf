import PushMediaModel

/// How far a movie or audio file shipped as it is (kept: its own bytes, not transcoded) is
/// checked, and the rule over what the check finds. iOS plays the file itself, so damage that
/// FFmpeg steps over in a transcode would reach the phone unchanged; checking every frame of a
/// 50 MB movie, though, costs as much as transcoding it. So every packet is demuxed (cheap: the
/// file read once; it finds a container that breaks off or points past the end of the file),
/// the audio is decoded up to ``audioDecodeSeconds`` (audio decodes hundreds of times faster
/// than it plays, and a 5 MB file at 128 kbit/s lasts about 5 minutes) and the video's first
/// ``videoDecodeSeconds`` (the poster frame's stage decodes the frames around the poster time
/// too). A check that fails fails the item with `corrupt_input`: a file with broken data is not
/// what was sent, and a transcode of it would hide the damage, not repair it.
struct KeptMediaCheck: Equatable, Sendable {
    /// Seconds of the audio stream decoded from its start (the rest is only demuxed).
    static let audioDecodeSeconds = 600.0
    /// Seconds of the video stream decoded from its start (the rest is only demuxed).
    static let videoDecodeSeconds = 3.0
    /// Packets a decoder may refuse before the file is damaged: an MP3 cut from a stream often
    /// starts with a frame whose bit reservoir is gone, and an encoder's last frame may be short.
    static let mostFailedPackets = 2
    /// How much shorter than the container's duration the packets may end: the larger of this
    /// share and ``leastMissingSlack`` (edit lists, priming samples, a rounded header).
    static let mostMissingShare = 0.02
    static let leastMissingSlack = 0.5

    /// The plan handed to C: the streams kept and how much of each is decoded.
    var videoIndex: Int?
    var audioIndex: Int?
    var videoDecodeSeconds: Double
    var audioDecodeSeconds: Double

    /// The plan for a kept file's streams, with this type's bounds.
    init(video: Int?, audio: Int?) {
        videoIndex = video
        audioIndex = audio
        videoDecodeSeconds = video == nil ? 0 : Self.videoDecodeSeconds
        audioDecodeSeconds = audio == nil ? 0 : Self.audioDecodeSeconds
    }

    /// What the check found (`pm_media_check_result`).
    struct Findings: Equatable, Sendable {
        /// The container's duration, nil when it gives none.
        var durationSeconds: Double?
        /// True when FFmpeg estimated that duration from the bit rate (MP3, ADTS AAC): it says
        /// nothing about where the file should end.
        var durationEstimated: Bool
        /// Where the packets of the kept streams reach.
        var endSeconds: Double
        /// FFmpeg's words for the error that ended demuxing early, nil when it reached the end.
        var demuxError: String?
        var decodedPackets: Int
        var failedPackets: Int
        /// Where the first decode failure was, and FFmpeg's words for it.
        var firstFailureSeconds: Double?
        var firstFailure: String
    }

    /// Why the kept `container` file is damaged, or nil when it may be shipped as it is.
    static func problem(_ found: Findings, container: String) -> String? {
        let total = found.durationSeconds.map { " of \(seconds($0))" } ?? ""
        if let demuxError = found.demuxError {
            return "the \(container) file breaks off after \(seconds(found.endSeconds))\(total): \(demuxError)"
        }
        if found.failedPackets > mostFailedPackets {
            let at = found.firstFailureSeconds.map { " (the first at \(seconds($0)): \(found.firstFailure))" } ?? ""
            return "\(found.failedPackets) of the first \(found.decodedPackets) packets of the \(container) file do not decode\(at)"
        }
        if let duration = found.durationSeconds, !found.durationEstimated,
            found.endSeconds < duration - max(leastMissingSlack, duration * mostMissingShare)
        {
            return "the \(container) file's data ends after \(seconds(found.endSeconds)) of the \(seconds(duration)) it says it lasts"
        }
        return nil
    }

    private static func seconds(_ value: Double) -> String {
        "\((value * 10).rounded() / 10) s"
    }
}
