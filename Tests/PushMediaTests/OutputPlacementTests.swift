import Foundation
import PushMedia
import Testing

/// Where an output folder may be, given an input folder (real folders: links are resolved).
@Suite("output folder apart from the input folder")
struct OutputPlacementTests {
    @Test("same, inside, holding; apart; a hidden folder between them; links and trailing slashes; an output not made yet")
    func overlaps() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("placement-\(UUID().uuidString.prefix(8))")
        let input = root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("ab"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link"), withDestinationURL: input)
        defer { try? FileManager.default.removeItem(at: root) }
        let cases: [(output: URL, input: URL, expected: OutputPlacement.Overlap?)] = [
            (input, input, .same),
            (URL(fileURLWithPath: input.path + "/"), input, .same),
            (root.appendingPathComponent("link"), input, .same),
            (input.appendingPathComponent("out"), input, .outputInsideInput),
            (root.appendingPathComponent("link/not/made/yet"), input, .outputInsideInput),
            (root, input, .inputInsideOutput),
            (input, input.appendingPathComponent("ab"), .inputInsideOutput),
            (root.appendingPathComponent("out"), input, nil),
            (root.appendingPathComponent("in-other"), input, nil),
            (input.appendingPathComponent(".out"), input, nil),
            (input, input.appendingPathComponent(".staging"), nil),
        ]
        for (output, input, expected) in cases {
            #expect(OutputPlacement.overlap(input: input, output: output) == expected, "\(output.path) for \(input.path)")
        }
    }
}
