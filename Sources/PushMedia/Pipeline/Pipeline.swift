import Foundation
import PushMediaModel

/// One step of an item's processing. Each step lives in its own file under `Pipeline/Steps/`.
protocol PipelineStep: Sendable {
    /// Short name used in logs and timeout messages.
    var name: String { get }
    /// True when the step calls libvips (its failures are re-run to get their own message).
    var usesLibVips: Bool { get }
    func run(_ context: ProcessingContext) throws
}

extension PipelineStep {
    var usesLibVips: Bool { true }
}

/// A list of steps run in order over one context, with a deadline check between steps.
struct Pipeline: Sendable {
    var steps: [any PipelineStep]

    func run(_ context: ProcessingContext) throws {
        for step in steps {
            try context.checkDeadline(before: step.name)
            guard step.usesLibVips else {
                try step.run(context)
                continue
            }
            do {
                try Vips.shared { try step.run(context) }
            } catch let error as ItemError where Self.libraryCodes.contains(error.code) {
                // The message may hold another item's libvips error: run the step again alone,
                // so what it reports is its own. (If it now succeeds, so much the better.)
                try Vips.exclusive { try step.run(context) }
            }
        }
    }

    /// Codes whose messages come from libvips' shared error buffer.
    static let libraryCodes: Set<ErrorCode> = [.corruptInput, .encodeFailed]

    /// The first step of every item: size, hash and format from the bytes.
    static let reading = Pipeline(steps: [ReadSourceStep()])

    /// Steps after ``reading``, chosen by what the bytes are.
    static func after(reading kind: MediaKind) -> Pipeline {
        switch kind {
        case .video, .audio: media
        default: image
        }
    }

    /// Images, still or animated.
    static let image = Pipeline(steps: [
        ProbeImageStep(),
        CheckLimitsStep(),
        DecodeStep(),
        FindSubjectStep(),
        CropStep(),
        EncodeStep(),
        StoreStep(),
    ])

    /// Movies and audio: a poster frame (or cover art) goes through the image steps, then the
    /// media file is kept, remuxed or transcoded to fit.
    static let media = Pipeline(steps: [
        ProbeMediaStep(),
        CheckMediaLimitsStep(),
        PosterFrameStep(),
        CoverArtStep(),
        FindSubjectStep(),
        CropStep(),
        EncodeStep(),
        StoreStep(),
        ConvertMediaStep(),
        StoreMediaStep(),
    ])
}
