import Foundation
import Logging
import PushMediaModel

/// Processes a folder: every file once, `jobs` at a time, then writes `manifest.json`.
public struct BatchProcessor: Sendable {
    public var profile: Profile
    public var options: ProcessingOptions
    /// Files processed at once.
    public var jobs: Int
    var logger: Logger

    public init(profile: Profile, options: ProcessingOptions, jobs: Int, logger: Logger = Logger(label: "pushmedia")) {
        self.profile = profile
        self.options = options
        self.jobs = max(1, jobs)
        self.logger = logger
    }

    /// Name of the manifest inside the output folder.
    public static let manifestName = "manifest.json"

    /// Processes `inputs`, calling `progress` after each item (from any task), and returns the
    /// manifest (already written to the output folder).
    public func run(
        inputs: [InputFile], progress: @escaping @Sendable (Item, _ done: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async throws -> Manifest {
        try FileManager.default.createDirectory(at: options.outputDirectory, withIntermediateDirectories: true)
        let processor = ItemProcessor(profile: profile, options: options, logger: logger)
        let items = await withTaskGroup(of: Item.self) { group in
            var pending = inputs[...]
            var results: [Item] = []
            results.reserveCapacity(inputs.count)
            for _ in 0..<min(jobs, inputs.count) {
                let input = pending.removeFirst()
                group.addTask { await Self.offload { processor.process(input) } }
            }
            while let item = await group.next() {
                results.append(item)
                progress(item, results.count, inputs.count)
                if let input = pending.popFirst() {
                    group.addTask { await Self.offload { processor.process(input) } }
                }
            }
            return results
        }
        let manifest = Manifest(profile: profile, items: items)
        try OutputStore.writeAtomically(
            manifest.jsonData(), to: options.outputDirectory.appendingPathComponent(Self.manifestName))
        return manifest
    }

    /// Runs blocking C work on a thread of its own instead of Swift's cooperative pool.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
