import PushMediaModel

/// Movies and audio: probe with libavformat, check the limits, cut the image variants from a
/// movie's poster frame or audio's cover art, then keep, remux or transcode the file to fit.
/// Movies and audio have their own, longer time limit. The media file's budget is what the
/// notification's delivery budget leaves after the images.
enum MediaPath {
    static func process(_ source: Source, _ run: ItemRun) throws -> [Attachment] {
        run.useMediaTimeLimit()
        let media = try run.stage("probe") { try ProbedMedia.probe(source, run) }
        try run.stage("limits") { try run.profile.limits.check(media) }
        let delivery = DeliveryBudget(profile: run.profile, carriesMedia: true)
        let (images, posterTime) = try pictureVariants(of: media, within: delivery, run)
        let spent = images?.bytes ?? 0
        let budget = MediaBudget(
            bytes: delivery.media(media.kind == .video ? .movie : .audio, spent: spent), why: delivery.explanation(spent: spent))
        let prepared = try run.stage("media") { try PreparedMedia.convert(media, within: budget, run) }
        // Nothing is stored until every file is made, so a failed item leaves no files; a
        // converted file is temporary until it is in the output folder.
        return try (images?.store(run) ?? []) + [prepared.store(run, posterTime: posterTime)]
    }

    /// The image variants of a movie's poster frame or of audio's cover art, encoded (nil when
    /// there is no art that decodes), and the poster frame's time. The pixels are released when
    /// this returns, before the conversion starts.
    private static func pictureVariants(of media: ProbedMedia, within delivery: DeliveryBudget, _ run: ItemRun) throws
        -> (images: Encoded?, posterTime: Double?)
    {
        if let poster = try run.stage("poster", { try PosterFrame.find(in: media, run) }) {
            return (try ImagePath.encode(poster.decoded, within: delivery, run), poster.time)
        }
        let art = try run.stage("cover art") { Decoded.coverArt(of: media, run) }
        return (try art.map { try ImagePath.encode($0, within: delivery, run) }, nil)
    }
}
