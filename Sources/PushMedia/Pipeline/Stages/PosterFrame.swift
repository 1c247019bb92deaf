import Foundation
import PushMediaModel

/// A movie's poster frame: its pixels (upright, at the size both image variants need) and when
/// it shows.
struct PosterFrame {
    var decoded: Decoded
    /// Seconds from the start of the movie (the media attachment's `thumbnailTime`).
    var time: Double

    /// Candidates scored in the window.
    static let candidates = 24
    /// Side of the greyscale copy a candidate is scored on.
    static let scoringSide = 48
    /// Frames decoded at most, whatever the window (bounds the work on high frame rates).
    static let maxDecodedFrames = 900

    /// Picks the poster frame: decodes the start of the clip (non-reference frames skipped;
    /// stopping 2 s after the first usable frame, or at the end of the window), scores evenly
    /// spaced candidates on a small greyscale copy (``PosterFrameChooser``: not black, white,
    /// flat or a dim fade-in frame) and keeps the best one's pixels, upright (display rotation
    /// applied) at the size both image variants need. Nil for audio.
    static func find(in media: ProbedMedia, _ run: ItemRun) throws -> PosterFrame? {
        guard let stream = media.videoStream else { return nil }
        let duration = media.probe.durationSeconds ?? stream.durationSeconds ?? 0
        let window = duration > 0 ? min(run.profile.video.posterWindowSeconds, duration) : run.profile.video.posterWindowSeconds
        let rotation = stream.rotation ?? 0
        var chooser = PosterFrameChooser(window: window)
        var poster: (pixels: [UInt8], width: Int, height: Int, time: Double)?
        var decoded = 0
        do {
            let reader = try FFmpeg.VideoReader(
                path: run.input.path, format: media.source.format, stream: stream.index, deadline: run.deadline)
            let interval = window / Double(candidates)
            var nextSample = 0.0
            while let time = try reader.next() {
                decoded += 1
                if poster != nil, time > window || chooser.isSettled(at: time) { break }
                if time + 1e-6 < nextSample, decoded < maxDecodedFrames { continue }
                nextSample = time + interval
                let statistics = FrameStatistics(luma: try reader.luma(width: scoringSide, height: scoringSide))
                if chooser.offer(statistics, at: time) {
                    let size = decodeSize(reader.frameSize, rotation: rotation, profile: run.profile)
                    poster = (try reader.rgb(width: size.width, height: size.height), size.width, size.height, time)
                }
                if decoded >= maxDecodedFrames { break }
            }
        } catch let error as FFmpeg.Error {
            if run.isPastDeadline || error.code == FFmpeg.exit {
                throw run.timedOut("poster frame search")
            }
            if poster == nil {
                throw ItemError(.corruptInput, "cannot decode the \(stream.codec) video: \(error.message)")
            }
            run.warnings.append("poster: decoding stopped after \(decoded) frames (\(error.message)); the poster is the best frame before that")
        }
        guard let poster else {
            throw ItemError(.corruptInput, "the \(stream.codec) video has no frame that decodes")
        }
        if chooser.choseBlank {
            run.warnings.append("poster: no frame in the first \(String(format: "%g", window)) s shows more than a flat colour")
        }
        let upright: Vips.Image
        do {
            upright = try Vips.attributed {
                try Vips.Image.fromRGB(poster.pixels, width: poster.width, height: poster.height).rotated(clockwise: rotation)
            }
        } catch let error as Vips.Error {
            throw ItemError(.corruptInput, "cannot use the poster frame: \(error.message)")
        }
        return PosterFrame(
            decoded: Decoded(still: upright, keepsAlpha: false, profile: run.profile), time: (poster.time * 1000).rounded() / 1000)
    }

    /// The size (in the frame's coded orientation) to scale a frame to: square pixels, and no
    /// larger than what the thumbnail and the expanded poster need once rotated upright.
    static func decodeSize(_ frame: (width: Int, height: Int, pixelAspect: Double), rotation: Int, profile: Profile) -> PixelSize {
        let displayWidth = max(1, Int((Double(frame.width) * frame.pixelAspect).rounded()))
        let quarterTurn = rotation % 180 == 90
        let upright =
            quarterTurn
            ? PixelSize(width: frame.height, height: displayWidth) : PixelSize(width: displayWidth, height: frame.height)
        let decode = ImagePlan(source: upright, profile: profile).decode
        return quarterTurn ? PixelSize(width: decode.height, height: decode.width) : decode
    }
}
