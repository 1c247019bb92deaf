import Foundation
import PushMediaModel

/// Probes a movie or audio file with libavformat (container, duration, bit rate, streams with
/// codec, size, display rotation, frame rate, pixel format, sample rate, channels, cover art).
/// Files FFmpeg cannot open fail with `corrupt_input`; files with no usable stream with
/// `no_media_stream`.
struct ProbeMediaStep: PipelineStep {
    var name: String { "probe" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard let format = context.format else { return }
        let description: MediaDescription
        do {
            description = try FFmpeg.MediaFile(path: context.input.path, deadline: context.deadline).probe()
        } catch let error as FFmpeg.Error {
            if ContinuousClock.now > context.deadline {
                throw ItemError(.timeout, "probing stopped at the time limit of \(context.profile.limits.timeoutSeconds) s")
            }
            throw ItemError(.corruptInput, "FFmpeg cannot read the \(format.rawValue) file: \(error.message)")
        }
        let (kind, probe) = try MediaClassifier.classify(description, format: format)
        context.kind = kind
        context.probe = probe
        if let width = probe.width, let height = probe.height {
            context.sourceSize = PixelSize(width: width, height: height)
        }
    }
}

/// Pure: what a probed media file is, and its manifest probe.
enum MediaClassifier {
    static func classify(_ media: MediaDescription, format: MediaFormat) throws -> (MediaKind, Probe) {
        let video = media.streams.first { $0.type == "video" && $0.coverArt != true && ($0.width ?? 0) > 0 }
        let audio = media.streams.first { $0.type == "audio" && ($0.sampleRate ?? 0) > 0 }
        let cover = media.streams.contains { $0.coverArt == true }
        guard video != nil || audio != nil else {
            let found = media.streams.map { "\($0.type) \($0.codec)" }.joined(separator: ", ")
            throw ItemError(.noMediaStream, "no usable video or audio stream (found: \(found.isEmpty ? "none" : found))")
        }
        var probe = Probe(
            format: format.rawValue, mimeType: format.mimeType, durationSeconds: media.durationSeconds)
        probe.container = media.container
        probe.bitRate = media.bitRate
        probe.streams = media.streams
        if let video, var width = video.width, var height = video.height {
            // Displayed size: a quarter turn swaps the sides.
            if let rotation = video.rotation, rotation % 180 == 90 { swap(&width, &height) }
            probe.width = width
            probe.height = height
            probe.rotation = video.rotation
            return (.video, probe)
        }
        probe.hasCoverArt = cover
        return (.audio, probe)
    }
}

/// Until movies and audio are transcoded, a media item ends here: probed, then failed with
/// `not_supported_yet` so it is listed with what was found.
struct MediaNotProcessedStep: PipelineStep {
    var name: String { "media" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        throw ItemError(
            .notSupportedYet,
            "\(context.kind.rawValue) recognised and probed; making attachments from movies and audio comes with a later version")
    }
}
