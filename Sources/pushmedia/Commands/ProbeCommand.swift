import ArgumentParser
import Foundation
import PushMedia
import PushMediaModel

/// `pushmedia probe FILE`: what PushMedia detects, without processing.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Show what PushMedia detects in a file (type from its bytes, size, orientation, …).")

    @Argument(help: "The file to probe.")
    var file: String

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let result: MediaProber.Result
        do {
            result = try MediaProber.probe(path: file)
        } catch {
            printError("\(file): \(error.code.rawValue): \(error.message)")
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
            return
        }
        let p = result.probe
        var lines = ["file:        \(file)", "kind:        \(result.kind.rawValue)", "format:      \(p.format) (\(p.mimeType ?? "?"))"]
        if let w = p.width, let h = p.height { lines.append("size:        \(w)x\(h) (as displayed)") }
        if let o = p.orientation { lines.append("orientation: \(o) (EXIF)") }
        if let b = p.bands, let d = p.bitDepth { lines.append("pixels:      \(b) bands, \(d)-bit, \(p.colourSpace ?? "?")") }
        if let a = p.hasAlpha { lines.append("alpha:       \(a ? "yes" : "no")") }
        if let i = p.hasICCProfile { lines.append("icc profile: \(i ? "yes" : "no")") }
        if let f = p.frames, f > 1 { lines.append("frames:      \(f)") }
        if let d = p.durationSeconds { lines.append(String(format: "duration:    %.2f s", d)) }
        print(lines.joined(separator: "\n"))
    }
}

/// `pushmedia version`: program and linked library versions.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Show the versions of PushMedia and the libraries it links.")

    func run() throws {
        print("pushmedia \(PushMediaVersion.string)")
        for (name, version) in NativeLibraries.versions.sorted(by: { $0.key < $1.key }) {
            print("\(name) \(version)")
        }
    }
}
