import Foundation
import PushMedia
import Testing

/// Where output files go: side by side, or in a subfolder of their hash's first two digits.
@Suite("Output layout")
struct OutputLayoutTests {
    @Test("flat keeps the name; sharded puts it under its first two hex digits")
    func paths() {
        let name = "3fa2b4c5d6e7f809-thumb.jpg"
        #expect(OutputLayout.flat.path(of: name) == name)
        #expect(OutputLayout.sharded.path(of: name) == "3f/" + name)
    }

    @Test(
        "process shards above 1,000 inputs, not at 1,000",
        arguments: [(0, OutputLayout.flat), (1, .flat), (1000, .flat), (1001, .sharded), (1_000_000, .sharded)])
    func threshold(_ inputs: Int, _ layout: OutputLayout) {
        #expect(OutputLayout.forBatch(inputs: inputs) == layout)
    }
}
