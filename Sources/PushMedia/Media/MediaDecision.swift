import PushMediaModel

/// Pure: what to do with a movie or audio input so that iOS plays it within its budget.
struct MediaDecision: Equatable {
    enum Action: Equatable {
        /// Ship the original bytes as this type.
        case keep(AttachmentType)
        /// Copy the streams into an MP4 (or M4A) without re-encoding.
        case remux
        /// Decode and encode again to H.264 + AAC in MP4, or AAC in M4A.
        case transcode
    }

    var action: Action
    /// Why, in words (for the manifest's warnings when not kept).
    var reason: String
    /// Streams to keep.
    var video: MediaStream?
    var audio: MediaStream?
    /// The bytes the output must fit (from the notification's delivery budget, never above the
    /// profile's per-type budget or Apple's limit).
    var budget: Int

    /// Video codecs iOS plays in a notification.
    static let playableVideoCodecs: Set<String> = ["h264", "hevc"]
    /// Audio codecs iOS plays in a movie.
    static let playableMovieAudioCodecs: Set<String> = ["aac", "mp3"]

    static func decide(format: MediaFormat?, kind: MediaKind, streams: [MediaStream], sourceBytes: Int, budget: Int)
        -> MediaDecision
    {
        let video = streams.first { $0.type == "video" && $0.coverArt != true }
        let audio = streams.first { $0.type == "audio" }
        if kind == .video {
            var decision = MediaDecision(action: .transcode, reason: "", video: video, audio: audio, budget: budget)
            let videoCodec = video?.codec ?? "none"
            guard let video, playableVideoCodecs.contains(video.codec) else {
                decision.reason = "the video codec \(videoCodec) does not play on iOS: transcoded to H.264"
                return decision
            }
            if let audio, !playableMovieAudioCodecs.contains(audio.codec) {
                decision.reason = "the audio codec \(audio.codec) does not play on iOS: transcoded to AAC"
                return decision
            }
            if sourceBytes > budget {
                decision.reason = "\(sourceBytes) bytes is over the movie budget of \(budget): transcoded to fit"
                return decision
            }
            // HEVC in MP4 plays only when tagged hvc1; a remux retags it.
            let wellTagged = video.codec != "hevc" || video.codecTag == nil || video.codecTag == "hvc1"
            if let type = movieType(format), wellTagged {
                return MediaDecision(action: .keep(type), reason: "", video: video, audio: audio, budget: budget)
            }
            decision.action = .remux
            decision.reason =
                wellTagged
                ? "the \(format?.rawValue ?? "unknown") container is not one iOS accepts: streams copied into MP4 (no re-encode)"
                : "HEVC tagged \(video.codecTag ?? "?") does not play on iOS: streams copied into MP4 tagged hvc1 (no re-encode)"
            return decision
        }

        var decision = MediaDecision(action: .transcode, reason: "", video: nil, audio: audio, budget: budget)
        let codec = audio?.codec ?? "none"
        if let type = audioType(format: format, codec: codec) {
            if sourceBytes <= budget {
                decision.action = .keep(type)
                return decision
            }
            decision.reason = "\(sourceBytes) bytes is over the audio budget of \(budget): transcoded to AAC to fit"
            return decision
        }
        if codec == "aac", sourceBytes <= budget {
            decision.action = .remux
            decision.reason = "AAC in a \(format?.rawValue ?? "unknown") container: copied into M4A (no re-encode)"
            return decision
        }
        decision.reason = "\(codec) in \(format?.rawValue ?? "an unknown container") does not play on iOS: transcoded to AAC in M4A"
        return decision
    }

    /// The attachment type of a movie container iOS accepts as it is.
    static func movieType(_ format: MediaFormat?) -> AttachmentType? {
        switch format {
        case .mp4: .mp4
        case .avi: .avi
        case .mpegProgramStream: .mpeg
        default: nil
        }
    }

    /// The attachment type of an audio file iOS accepts as it is, when the codec matches the container.
    static func audioType(format: MediaFormat?, codec: String) -> AttachmentType? {
        switch format {
        case .wav where codec.hasPrefix("pcm_"): .wav
        case .aiff where codec.hasPrefix("pcm_"): .aiff
        case .mp3 where codec == "mp3": .mp3
        case .m4a where codec == "aac" || codec == "alac": .m4a
        default: nil
        }
    }
}
