import PushMediaModel

/// Until movies and audio are transcoded, a media item ends here: probed, then failed with
/// `not_supported_yet` so it is listed with what was found.
struct MediaNotProcessedStep: PipelineStep {
    var name: String { "media" }
    var usesLibVips: Bool { false }

    func run(_ context: ProcessingContext) throws {
        throw ItemError(
            .notSupportedYet,
            "\(context.kind.rawValue) recognised and probed; making attachments from movies and audio comes with a later version")
    }
}
