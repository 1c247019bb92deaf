import Foundation
import PushMediaModel

/// A movie or audio file as libavformat describes it, before any frame is decoded.
struct ProbedMedia {
    var source: Source
    /// `.video` or `.audio` (``MediaClassifier``).
    var kind: MediaKind
    /// The manifest's probe: container, duration, bit rate, streams with codec, size, display
    /// rotation, frame rate, pixel format, sample rate, channels, cover art.
    var probe: Probe
    /// Audio's embedded cover art, still encoded (read from the same open as the probe).
    var coverArt: Data?
    /// What each video stream is, as a transcode reads it (not in the manifest): by stream index.
    var videoSources: [Int: TranscodePlan.VideoSource] = [:]

    /// The video stream a poster frame comes from (not cover art).
    var videoStream: MediaStream? {
        kind == .video ? probe.streams?.first { $0.type == "video" && $0.coverArt != true } : nil
    }

    /// Opens the file with the sniffed format and reads what the container says, and audio's
    /// cover art (the open stops at the deadline). Files FFmpeg cannot open fail with
    /// `corrupt_input`; files with no usable stream with `no_media_stream`.
    static func probe(_ source: Source, _ run: ItemRun) throws -> ProbedMedia {
        let file: FFmpeg.MediaFile
        do {
            file = try FFmpeg.MediaFile(path: run.input.path, format: source.format, deadline: run.deadline)
        } catch let error as FFmpeg.Error {
            if run.isPastDeadline {
                throw run.timedOut("probing")
            }
            throw ItemError(.corruptInput, "FFmpeg cannot read the \(source.format.rawValue) file: \(error.message)")
        }
        let (kind, probe) = try MediaClassifier.classify(file.probe(), format: source.format)
        run.record(kind: kind, probe: probe)
        let coverArt = kind == .audio && probe.hasCoverArt == true ? file.coverArt() : nil
        var videoSources: [Int: TranscodePlan.VideoSource] = [:]
        for stream in probe.streams ?? [] where stream.type == "video" {
            videoSources[stream.index] = file.videoSource(stream: stream.index)
        }
        return ProbedMedia(source: source, kind: kind, probe: probe, coverArt: coverArt, videoSources: videoSources)
    }
}
