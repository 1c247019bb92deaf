import PushMediaModel

/// Movies and audio: probe with libavformat, check the limits, make the poster frame (movies) or
/// decode the cover art (audio) and cut the image variants from it, then keep, remux or
/// transcode the file to fit. Movies and audio have their own, longer time limit.
enum MediaPath {
    static func process(_ source: Source, _ run: ItemRun) throws -> [Attachment] {
        run.useMediaTimeLimit()
        let media = try run.stage("probe") { try ProbedMedia.probe(source, run) }
        try run.stage("limits") { try run.profile.limits.check(media) }
        let poster = try run.stage("poster") { try PosterFrame.find(in: media, run) }
        let picture = try poster?.decoded ?? run.stage("cover art") { Decoded.coverArt(of: media, run) }
        let images = try picture.map { try ImagePath.variants(of: $0, run) } ?? []
        let prepared = try run.stage("media") { try PreparedMedia.convert(media, run) }
        // Stored at once: a converted file is temporary until it is in the output folder.
        return try images + [prepared.store(run, posterTime: poster?.time)]
    }
}
