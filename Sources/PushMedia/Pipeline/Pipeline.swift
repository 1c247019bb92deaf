import Foundation
import PushMediaModel

/// One step of an item's processing. Each step lives in its own file under `Pipeline/Steps/`.
protocol PipelineStep: Sendable {
    /// Short name used in logs and timeout messages.
    var name: String { get }
    func run(_ context: ProcessingContext) throws
}

/// A list of steps run in order over one context, with a deadline check between steps.
struct Pipeline: Sendable {
    var steps: [any PipelineStep]

    func run(_ context: ProcessingContext) throws {
        for step in steps {
            try context.checkDeadline(before: step.name)
            try step.run(context)
        }
    }

    /// The still-image pipeline.
    static let stillImage = Pipeline(steps: [
        ReadSourceStep(),
        ProbeImageStep(),
        DecodeStep(),
        FindSubjectStep(),
        CropStep(),
        EncodeStep(),
        StoreStep(),
    ])
}
