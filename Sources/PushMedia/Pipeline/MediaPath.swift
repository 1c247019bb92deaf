import PushMediaModel

/// Movies and audio: probe with libavformat, check the limits, cut the image variants from a
/// movie's poster frame or audio's cover art, then keep, remux or transcode the file to fit.
/// Movies and audio have their own, longer time limit.
enum MediaPath {
    static func process(_ source: Source, _ run: ItemRun) throws -> [Attachment] {
        run.useMediaTimeLimit()
        let media = try run.stage("probe") { try ProbedMedia.probe(source, run) }
        try run.stage("limits") { try run.profile.limits.check(media) }
        let (images, posterTime) = try pictureVariants(of: media, run)
        let prepared = try run.stage("media") { try PreparedMedia.convert(media, run) }
        // Stored at once: a converted file is temporary until it is in the output folder.
        return try images + [prepared.store(run, posterTime: posterTime)]
    }

    /// The image variants of a movie's poster frame or of audio's cover art (none when there is
    /// no art that decodes), and the poster frame's time. The pixels are released when this
    /// returns, before the conversion starts.
    private static func pictureVariants(of media: ProbedMedia, _ run: ItemRun) throws -> (images: [Attachment], posterTime: Double?) {
        if let poster = try run.stage("poster", { try PosterFrame.find(in: media, run) }) {
            return (try ImagePath.variants(of: poster.decoded, run), poster.time)
        }
        let art = try run.stage("cover art") { Decoded.coverArt(of: media, run) }
        return (try art.map { try ImagePath.variants(of: $0, run) } ?? [], nil)
    }
}
