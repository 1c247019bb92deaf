import Foundation
import Logging
import PushMediaModel

/// Turns one input file into one manifest item. Never throws: every failure becomes a failed
/// item with an error code, so a batch always finishes.
public struct ItemProcessor: Sendable {
    public var profile: Profile
    public var options: ProcessingOptions
    var logger: Logger

    public init(profile: Profile, options: ProcessingOptions, logger: Logger = Logger(label: "pushmedia")) {
        self.profile = profile
        self.options = options
        self.logger = logger
    }

    /// Processes one file synchronously (blocking: libvips does the work on this thread and its own).
    public func process(_ input: InputFile) -> Item {
        let context = ProcessingContext(
            input: input, profile: profile, options: options, deadline: .now + .milliseconds(Int(profile.limits.timeoutSeconds * 1000)))
        do {
            try Vips.start()
            try Pipeline.reading.run(context)
            if context.kind == .video || context.kind == .audio {
                // Transcoding takes longer than an image: movies and audio have their own limit.
                context.timeoutSeconds = profile.limits.mediaTimeoutSeconds
                context.deadline = .now + .milliseconds(Int(profile.limits.mediaTimeoutSeconds * 1000))
            }
            try Pipeline.after(reading: context.kind).run(context)
            return Item(
                source: input.source, sourceSHA256: context.sourceSHA256, sourceBytes: context.sourceBytes,
                kind: context.kind, status: .ok, probe: context.probe, attachments: context.attachments,
                warnings: context.warnings)
        } catch let error as ItemError {
            logger.debug("item failed", metadata: ["source": "\(input.source)", "code": "\(error.code)"])
            return failed(context, error)
        } catch {
            logger.error("unexpected failure", metadata: ["source": "\(input.source)", "error": "\(error)"])
            return failed(context, ItemError(.internalError, "\(error)"))
        }
    }

    private func failed(_ context: ProcessingContext, _ error: ItemError) -> Item {
        Item(
            source: context.input.source, sourceSHA256: context.sourceSHA256, sourceBytes: context.sourceBytes,
            kind: context.kind, status: .failed, error: error, probe: context.probe, attachments: [],
            warnings: context.warnings)
    }
}
