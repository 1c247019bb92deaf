import PushMediaModel

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

/// A media file's container and streams, as probed.
struct MediaDescription: Equatable {
    var container: String
    var durationSeconds: Double?
    var bitRate: Int?
    var streams: [MediaStream]
}
