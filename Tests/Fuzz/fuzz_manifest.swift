// libFuzzer harness for the manifest readers (Sources/PushMediaModel: FileLineReader,
// ManifestItemReader, Manifest.forEachLine and the value checks of Item+ValueChecks), the Swift
// that `verify`, `payload` and `preview` read a hand-made or hostile manifest with.
// scripts/fuzz compiles it with the PushMediaModel sources into one module, with
// `swiftc -sanitize=fuzzer,address`: a trap (an overflow, an index out of range) is a crash.
//
// Beyond not trapping:
// - every item a reader returns has no value out of range (Item.valueProblem() is nil);
// - the streaming NDJSON reader and Manifest.forEachLine agree: the same items, or the same
//   failing line;
// - the line reader returns the input's lines, byte for byte, whatever their length.

import Foundation

private let folder: URL = {
    let base = ProcessInfo.processInfo.environment["PM_FUZZ_TMPDIR"] ?? NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("manifest-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

private enum Outcome: Equatable {
    case items([Item])
    case failed(line: Int?)
}

private func readAll(_ reader: ManifestItemReader) -> Outcome {
    var items: [Item] = []
    do {
        while let item = try reader.next() {
            if let problem = item.valueProblem() { fatalError("the reader returned an item with \(problem)") }
            items.append(item)
        }
        return .items(items)
    } catch let error as Manifest.NDJSONError {
        return .failed(line: error.line)
    } catch {
        return .failed(line: nil)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let ndjson = folder.appendingPathComponent("m.ndjson")
    let json = folder.appendingPathComponent("m.json")
    guard (try? bytes.write(to: ndjson)) != nil, (try? bytes.write(to: json)) != nil else { fatalError("cannot write the input") }

    // The lines, as split by hand.
    var expected: [Data] = []
    var start = 0
    for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
        expected.append(bytes.subdata(in: start..<index))
        start = index + 1
    }
    if start < bytes.count { expected.append(bytes.subdata(in: start..<bytes.count)) }
    guard let lines = try? FileLineReader(url: ndjson) else { fatalError("cannot open the input") }
    var read: [Data] = []
    while let line = try? lines.next() { read.append(line) }
    guard read == expected, lines.lineNumber == expected.count else { fatalError("the line reader split \(read.count) lines, not \(expected.count)") }

    guard let streamed = try? ManifestItemReader(url: ndjson) else { fatalError("cannot open the input as NDJSON") }
    let fromReader = readAll(streamed)
    var fromLines: [Item] = []
    var linesOutcome: Outcome
    do {
        try Manifest.forEachLine(ofNDJSON: ndjson) { item in
            if let problem = item.valueProblem() { fatalError("forEachLine returned an item with \(problem)") }
            fromLines.append(item)
            return true
        }
        linesOutcome = .items(fromLines)
    } catch let error as Manifest.NDJSONError {
        linesOutcome = .failed(line: error.line)
    } catch {
        linesOutcome = .failed(line: nil)
    }
    guard fromReader == linesOutcome else { fatalError("the NDJSON readers disagree: \(fromReader) against \(linesOutcome)") }

    // The JSON form: streamed when laid out as ManifestWriter writes it, else decoded whole.
    if let whole = try? ManifestItemReader(url: json) { _ = readAll(whole) }
    return 0
}
