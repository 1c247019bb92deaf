import Foundation

/// Where an output folder may be, given an input folder: apart from it. An output folder that
/// is the input folder, or lies inside it, has its outputs, manifest and preview listed as
/// inputs by the next run (each run would process the last one's files); an input folder inside
/// the output folder (a shard folder, say) has its inputs mixed with the outputs. Either is
/// allowed only through a hidden folder (a name starting with `.`), which the input walk skips
/// by design (``InputScanner``): `IN/.out` as the output folder, or `OUT/.staging` as the input.
public enum OutputPlacement {
    /// How the two folders are placed, when they are not apart.
    public enum Overlap: Sendable, Equatable {
        /// The same folder.
        case same
        /// The output folder is inside the input folder.
        case outputInsideInput
        /// The input folder is inside the output folder.
        case inputInsideOutput
    }

    /// How `output` and `input` overlap, nil when they are apart (or overlap only through a
    /// hidden folder). Both are compared as real paths (links resolved, as far as the folders
    /// exist: an output folder not made yet is compared by its nearest existing parent).
    public static func overlap(input: URL, output: URL) -> Overlap? {
        let inputParts = realComponents(input)
        let outputParts = realComponents(output)
        if inputParts == outputParts { return .same }
        if outputParts.starts(with: inputParts) {
            return outputParts.dropFirst(inputParts.count).contains(where: isHidden) ? nil : .outputInsideInput
        }
        if inputParts.starts(with: outputParts) {
            return inputParts.dropFirst(outputParts.count).contains(where: isHidden) ? nil : .inputInsideOutput
        }
        return nil
    }

    /// The usage error for an overlap, naming both folders and what to do; `inputName` is how
    /// the command calls its input (`the input folder`, `--root`).
    public static func message(_ overlap: Overlap, input: URL, output: URL, inputName: String) -> String {
        let (inputPath, outputPath) = (input.standardizedFileURL.path, output.standardizedFileURL.path)
        switch overlap {
        case .same:
            return "--out \(outputPath) is \(inputName) itself: each run would read the last run's outputs, manifest and preview as "
                + "inputs; give an output folder outside it"
        case .outputInsideInput:
            return "--out \(outputPath) lies inside \(inputName) \(inputPath): each run would read the last run's outputs as inputs; "
                + "give an output folder outside it (or a hidden one inside, such as \(inputPath)/.pushmedia-out, which inputs skip)"
        case .inputInsideOutput:
            return "\(inputName) \(inputPath) lies inside --out \(outputPath): inputs and outputs would share a folder; "
                + "give an output folder outside it"
        }
    }

    private static func isHidden(_ component: String) -> Bool { component.hasPrefix(".") }

    /// The path's components with links resolved as far as it exists, the rest as written.
    static func realComponents(_ url: URL) -> [String] {
        var existing = url.standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.pathComponents.count > 1 {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        let resolved = existing.resolvingSymlinksInPath().pathComponents
        return Array((resolved + rest).drop { $0 == "/" })
    }
}
