import Foundation
import PushMediaModel

/// The bytes a movie or audio file may take, and why (for an `over_budget` message).
struct MediaBudget {
    var bytes: Int
    var why: String
}

/// A movie or audio file ready to store: the input itself, or a file made from it.
struct PreparedMedia {
    var file: URL
    /// True when ``file`` is ours to move into the output folder (else it is copied).
    var isTemporary: Bool
    var type: AttachmentType
    var budget: Int
    var encoding: Attachment.MediaEncoding
    var width: Int?
    var height: Int?
    var durationSeconds: Double?

    /// Makes the movie or audio file to ship (``MediaDecision``): keeps the original when iOS
    /// plays it and it fits, copies the streams into MP4/M4A when only the container is wrong,
    /// and otherwise transcodes to H.264 + AAC (MP4, faststart) or AAC (M4A) at bit rates
    /// computed from the budget and duration (``BitRatePlan``), trying lower rates while the
    /// result is too big. The budget is what the notification's delivery budget leaves.
    static func convert(_ media: ProbedMedia, within budget: MediaBudget, _ run: ItemRun) throws -> PreparedMedia {
        let decision = MediaDecision.decide(
            format: media.source.format, kind: media.kind, streams: media.probe.streams ?? [],
            sourceBytes: media.source.bytes, budget: budget.bytes)
        do {
            return try convert(media, decision, run)
        } catch var error as ItemError where error.code == .overBudget {
            error.message += "; \(budget.why)"
            throw error
        }
    }

    private static func convert(_ media: ProbedMedia, _ decision: MediaDecision, _ run: ItemRun) throws -> PreparedMedia {
        let probe = media.probe
        switch decision.action {
        case .keep(let type):
            try checkKept(media, decision, run, container: type.fileExtensions[0].uppercased())
            return PreparedMedia(
                file: URL(fileURLWithPath: run.input.path), isTemporary: false, type: type, budget: decision.budget,
                encoding: Attachment.MediaEncoding(
                    action: .kept, container: type.fileExtensions[0], videoCodec: decision.video?.codec,
                    audioCodec: decision.audio?.codec),
                width: probe.width, height: probe.height, durationSeconds: probe.durationSeconds)
        case .remux:
            if let remuxed = try remux(media, decision, run), remuxed.bytes <= decision.budget {
                run.warnings.append("media: \(decision.reason)")
                return remuxed.media
            }
            // Over budget once copied: transcode instead.
            return try transcode(
                media, decision, run, reason: "\(decision.reason), then over the budget of \(decision.budget) bytes: transcoded")
        case .transcode:
            return try transcode(media, decision, run, reason: decision.reason)
        }
    }

    /// A file shipped as it is must play as it is: ``KeptMediaCheck`` (every packet demuxed, the
    /// start decoded); damage fails the item with `corrupt_input`.
    private static func checkKept(_ media: ProbedMedia, _ decision: MediaDecision, _ run: ItemRun, container: String) throws {
        let plan = KeptMediaCheck(video: decision.video?.index, audio: decision.audio?.index)
        let found: KeptMediaCheck.Findings
        do {
            found = try FFmpeg.check(input: run.input.path, format: media.source.format, plan: plan, deadline: run.deadline)
        } catch let error as FFmpeg.ConversionError {
            throw itemError(error, run, what: "check the \(container) file that would be kept")
        }
        if let problem = KeptMediaCheck.problem(found, container: container) {
            throw ItemError(.corruptInput, "\(problem): not shipped as it is")
        }
    }

    private static func temporaryFile(_ run: ItemRun, extension ext: String) throws -> URL {
        let folder = run.options.outputDirectory
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(TemporaryFileName.media(extension: ext))
    }

    private static func remux(_ media: ProbedMedia, _ decision: MediaDecision, _ run: ItemRun) throws -> (media: PreparedMedia, bytes: Int)? {
        let type: AttachmentType = media.kind == .video ? .mp4 : .m4a
        let output = try temporaryFile(run, extension: type.fileExtensions[0])
        do {
            try FFmpeg.remux(
                input: run.input.path, format: media.source.format, output: output.path, video: decision.video?.index,
                audio: decision.audio?.index, sampleAspect: decision.video.flatMap { media.videoSources[$0.index]?.sampleAspect },
                deadline: run.deadline)
        } catch let error as FFmpeg.ConversionError {
            try? FileManager.default.removeItem(at: output)
            throw itemError(error, run, what: "copy the streams into \(type.fileExtensions[0].uppercased())")
        }
        let bytes = size(of: output)
        if bytes > decision.budget {
            try? FileManager.default.removeItem(at: output)
            return nil
        }
        let probe = media.probe
        return (
            PreparedMedia(
                file: output, isTemporary: true, type: type, budget: decision.budget,
                encoding: Attachment.MediaEncoding(
                    action: .remuxed, container: type.fileExtensions[0], videoCodec: decision.video?.codec,
                    audioCodec: decision.audio?.codec),
                width: probe.width, height: probe.height, durationSeconds: probe.durationSeconds),
            bytes
        )
    }

    private static func transcode(_ media: ProbedMedia, _ decision: MediaDecision, _ run: ItemRun, reason: String) throws
        -> PreparedMedia
    {
        let profile = run.profile
        guard let duration = media.probe.durationSeconds ?? decision.video?.durationSeconds ?? decision.audio?.durationSeconds,
            duration > 0
        else {
            throw ItemError(.corruptInput, "the file does not say how long it is, so no bit rate can be chosen to fit its budget")
        }
        let isMovie = media.kind == .video && decision.video != nil
        let type: AttachmentType = isMovie ? .mp4 : .m4a
        let transcode = TranscodePlan(
            video: isMovie ? decision.video.flatMap { media.videoSources[$0.index] }.map { TranscodePlan.video($0, profile: profile.video) } : nil,
            audio: decision.audio.map { TranscodePlan.audio(sampleRate: $0.sampleRate, channels: $0.channels) })
        if isMovie && transcode.video == nil {
            throw ItemError(.corruptInput, "FFmpeg gives no size for the video stream, so it cannot be transcoded")
        }
        var plan: BitRatePlan
        if isMovie {
            plan = try BitRatePlan.movie(
                budget: decision.budget, duration: duration, hasAudio: decision.audio != nil,
                pixelsPerSecond: transcode.pixelsPerSecond, profile: profile)
        } else {
            plan = try BitRatePlan.audio(budget: decision.budget, duration: duration, profile: profile)
        }
        var attempts = 0
        var tried: [String] = []
        while true {
            attempts += 1
            let output = try temporaryFile(run, extension: type.fileExtensions[0])
            let result: FFmpeg.TranscodeResult
            do {
                result = try FFmpeg.transcode(
                    input: run.input.path, format: media.source.format, output: output.path,
                    settings: FFmpeg.TranscodeSettings(
                        video: isMovie ? decision.video?.index : nil, audio: decision.audio?.index, plan: transcode,
                        videoBitRate: plan.video, audioBitRate: plan.audio, maxDuration: plan.trimmedTo),
                    deadline: run.deadline)
            } catch let error as FFmpeg.ConversionError {
                try? FileManager.default.removeItem(at: output)
                throw itemError(error, run, what: isMovie ? "transcode to H.264/AAC" : "transcode to AAC")
            }
            let bytes = size(of: output)
            tried.append(isMovie ? "\(plan.video / 1000) kbit/s video: \(bytes) bytes" : "\(plan.audio / 1000) kbit/s: \(bytes) bytes")
            if bytes <= decision.budget && bytes > 0 {
                var width = result.width
                var height = result.height
                if let rotation = decision.video?.rotation, rotation % 180 == 90 { swap(&width, &height) }
                let prepared = PreparedMedia(
                    file: output, isTemporary: true, type: type, budget: decision.budget,
                    encoding: Attachment.MediaEncoding(
                        action: .transcoded, container: type.fileExtensions[0], videoCodec: isMovie ? "h264" : nil,
                        audioCodec: decision.audio == nil ? nil : "aac", videoBitRate: isMovie ? plan.video : nil,
                        audioBitRate: decision.audio == nil ? nil : plan.audio, attempts: attempts,
                        trimmedToSeconds: plan.trimmedTo),
                    width: width, height: height, durationSeconds: (result.durationSeconds * 1000).rounded() / 1000)
                run.warnings.append("media: \(reason)")
                if let trim = plan.trimmedTo {
                    run.warnings.append(
                        "media: trimmed to the first \(String(format: "%g", trim)) s of \(String(format: "%.1f", duration)) s to fit \(decision.budget) bytes (video.trimToSeconds)"
                    )
                }
                return prepared
            }
            try? FileManager.default.removeItem(at: output)
            guard attempts < BitRatePlan.maxAttempts,
                let lower = plan.lowered(
                    bytes: bytes, budget: decision.budget, minVideo: profile.video.minBitRate, minAudio: profile.audio.minBitRate)
            else {
                throw ItemError(
                    .overBudget,
                    "the \(type.fileExtensions[0]) cannot fit \(decision.budget) bytes after \(attempts) transcodes; tried \(tried.joined(separator: "; "))"
                )
            }
            plan = lower
        }
    }

    static func size(of file: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    }

    static func itemError(_ error: FFmpeg.ConversionError, _ run: ItemRun, what: String) -> ItemError {
        if error.timedOut || run.isPastDeadline {
            return run.timedOut("the attempt to \(what)")
        }
        // A full or read-only disk under the file being written is the storage's failure, not the
        // item's. Not EIO: FFmpeg also reports an input it cannot read with it.
        if let posix = OutputStore.storageErrnos.subtracting([EIO]).first(where: { FFmpeg.averror($0) == error.code }) {
            return ItemError(.storageFailed, "cannot \(what): \(String(cString: strerror(posix)))")
        }
        // A fault of the input is permanent: every attempt would read the same bytes.
        if let code = FFmpeg.inputFault(error.code) {
            return ItemError(code, "cannot \(what): \(error.description)")
        }
        return ItemError(.encodeFailed, "cannot \(what): \(error.description)")
    }
}
