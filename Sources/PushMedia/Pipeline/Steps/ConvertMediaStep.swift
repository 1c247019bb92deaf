import Foundation
import PushMediaModel

/// Makes the movie or audio file to ship (``MediaDecision``): keeps the original when iOS plays
/// it and it fits, copies the streams into MP4/M4A when only the container is wrong, and
/// otherwise transcodes to H.264 + AAC (MP4, faststart) or AAC (M4A) at bit rates computed from
/// the budget and duration (``BitRatePlan``), trying lower rates while the result is too big.
struct ConvertMediaStep: PipelineStep {
    var name: String { "media" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        guard context.kind == .video || context.kind == .audio, let probe = context.probe else { return }
        let decision = MediaDecision.decide(
            format: context.format, kind: context.kind, streams: probe.streams ?? [],
            sourceBytes: context.sourceBytes ?? 0, profile: context.profile)
        let input = URL(fileURLWithPath: context.input.path)
        switch decision.action {
        case .keep(let type):
            context.media = PreparedMedia(
                file: input, isTemporary: false, type: type, budget: decision.budget,
                encoding: Attachment.MediaEncoding(
                    action: .kept, container: type.fileExtensions[0], videoCodec: decision.video?.codec,
                    audioCodec: decision.audio?.codec),
                width: probe.width, height: probe.height, durationSeconds: probe.durationSeconds)
            return
        case .remux:
            if let remuxed = try remux(context, decision), remuxed.bytes <= decision.budget {
                context.media = remuxed.media
                context.warnings.append("media: \(decision.reason)")
                return
            }
            // Over budget once copied: transcode instead.
            try transcode(context, decision, reason: "\(decision.reason), then over the budget of \(decision.budget) bytes: transcoded")
        case .transcode:
            try transcode(context, decision, reason: decision.reason)
        }
    }

    private func temporaryFile(_ context: ProcessingContext, extension ext: String) throws -> URL {
        let folder = context.options.outputDirectory
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(".pushmedia-\(UUID().uuidString).\(ext)")
    }

    private func remux(_ context: ProcessingContext, _ decision: MediaDecision) throws -> (media: PreparedMedia, bytes: Int)? {
        let type: AttachmentType = context.kind == .video ? .mp4 : .m4a
        let output = try temporaryFile(context, extension: type.fileExtensions[0])
        do {
            try FFmpeg.remux(
                input: context.input.path, format: context.format, output: output.path, video: decision.video?.index, audio: decision.audio?.index,
                deadline: context.deadline)
        } catch let error as FFmpeg.ConversionError {
            try? FileManager.default.removeItem(at: output)
            throw Self.itemError(error, context, what: "copy the streams into \(type.fileExtensions[0].uppercased())")
        }
        let bytes = Self.size(of: output)
        if bytes > decision.budget {
            try? FileManager.default.removeItem(at: output)
            return nil
        }
        let probe = context.probe
        return (
            PreparedMedia(
                file: output, isTemporary: true, type: type, budget: decision.budget,
                encoding: Attachment.MediaEncoding(
                    action: .remuxed, container: type.fileExtensions[0], videoCodec: decision.video?.codec,
                    audioCodec: decision.audio?.codec),
                width: probe?.width, height: probe?.height, durationSeconds: probe?.durationSeconds),
            bytes
        )
    }

    private func transcode(_ context: ProcessingContext, _ decision: MediaDecision, reason: String) throws {
        let profile = context.profile
        let probe = context.probe
        guard let duration = probe?.durationSeconds ?? decision.video?.durationSeconds ?? decision.audio?.durationSeconds,
            duration > 0
        else {
            throw ItemError(.corruptInput, "the file does not say how long it is, so no bit rate can be chosen to fit its budget")
        }
        let isMovie = context.kind == .video && decision.video != nil
        let type: AttachmentType = isMovie ? .mp4 : .m4a
        var plan: BitRatePlan
        if isMovie, let video = decision.video {
            let output = Self.outputSize(width: video.width ?? 0, height: video.height ?? 0, maxLongSide: profile.video.maxLongSide)
            let fps = min(video.frameRate ?? 30, profile.video.maxFrameRate)
            plan = try BitRatePlan.movie(
                budget: decision.budget, duration: duration, hasAudio: decision.audio != nil,
                pixelsPerSecond: Double(output.width * output.height) * fps, profile: profile)
        } else {
            plan = try BitRatePlan.audio(budget: decision.budget, duration: duration, profile: profile)
        }
        var attempts = 0
        var tried: [String] = []
        while true {
            attempts += 1
            let output = try temporaryFile(context, extension: type.fileExtensions[0])
            let result: FFmpeg.TranscodeResult
            do {
                result = try FFmpeg.transcode(
                    input: context.input.path, format: context.format, output: output.path,
                    settings: FFmpeg.TranscodeSettings(
                        video: isMovie ? decision.video?.index : nil, audio: decision.audio?.index,
                        maxLongSide: profile.video.maxLongSide, videoBitRate: plan.video,
                        audioBitRate: isMovie ? plan.audio : plan.audio, maxFrameRate: profile.video.maxFrameRate,
                        maxDuration: plan.trimmedTo, preset: profile.video.preset),
                    deadline: context.deadline)
            } catch let error as FFmpeg.ConversionError {
                try? FileManager.default.removeItem(at: output)
                throw Self.itemError(error, context, what: isMovie ? "transcode to H.264/AAC" : "transcode to AAC")
            }
            let bytes = Self.size(of: output)
            tried.append(isMovie ? "\(plan.video / 1000) kbit/s video: \(bytes) bytes" : "\(plan.audio / 1000) kbit/s: \(bytes) bytes")
            if bytes <= decision.budget && bytes > 0 {
                var width = result.width
                var height = result.height
                if let rotation = decision.video?.rotation, rotation % 180 == 90 { swap(&width, &height) }
                context.media = PreparedMedia(
                    file: output, isTemporary: true, type: type, budget: decision.budget,
                    encoding: Attachment.MediaEncoding(
                        action: .transcoded, container: type.fileExtensions[0], videoCodec: isMovie ? "h264" : nil,
                        audioCodec: decision.audio == nil ? nil : "aac", videoBitRate: isMovie ? plan.video : nil,
                        audioBitRate: decision.audio == nil ? nil : plan.audio, attempts: attempts,
                        trimmedToSeconds: plan.trimmedTo),
                    width: width, height: height, durationSeconds: (result.durationSeconds * 1000).rounded() / 1000)
                context.warnings.append("media: \(reason)")
                if let trim = plan.trimmedTo {
                    context.warnings.append(
                        "media: trimmed to the first \(String(format: "%g", trim)) s of \(String(format: "%.1f", duration)) s to fit \(decision.budget) bytes (video.trimToSeconds)")
                }
                return
            }
            try? FileManager.default.removeItem(at: output)
            guard attempts < BitRatePlan.maxAttempts,
                let lower = plan.lowered(
                    bytes: bytes, budget: decision.budget, minVideo: profile.video.minBitRate, minAudio: profile.audio.minBitRate)
            else {
                throw ItemError(
                    .overBudget,
                    "the \(type.fileExtensions[0]) cannot fit \(decision.budget) bytes after \(attempts) transcodes; tried \(tried.joined(separator: "; "))")
            }
            plan = lower
        }
    }

    /// Output size of a transcode (as the C side computes it): long side at most `maxLongSide`, even sides.
    static func outputSize(width: Int, height: Int, maxLongSide: Int) -> PixelSize {
        let long = Double(max(width, height, 1))
        let scale = long > Double(maxLongSide) ? Double(maxLongSide) / long : 1
        func even(_ v: Int) -> Int { max(2, Int((Double(v) * scale).rounded()) & ~1) }
        return PixelSize(width: even(width), height: even(height))
    }

    static func size(of file: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    }

    static func itemError(_ error: FFmpeg.ConversionError, _ context: ProcessingContext, what: String) -> ItemError {
        if error.timedOut || ContinuousClock.now > context.deadline {
            return ItemError(.timeout, "stopped at the time limit of \(String(format: "%g", context.timeoutSeconds)) s while trying to \(what)")
        }
        return ItemError(.encodeFailed, "cannot \(what): \(error.description)")
    }
}
