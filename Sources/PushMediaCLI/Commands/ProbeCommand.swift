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
            printError(TerminalText.escaped("\(file): \(error.code.rawValue): \(error.message)"))
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
            return
        }
        let p = result.probe
        var lines = [
            "file:        \(TerminalText.escaped(file))", "kind:        \(result.kind.rawValue)", "format:      \(p.format) (\(p.mimeType ?? "?"))",
        ]
        if let w = p.width, let h = p.height { lines.append("size:        \(w)x\(h) (as displayed)") }
        if let o = p.orientation { lines.append("orientation: \(o) (EXIF)") }
        if let b = p.bands, let d = p.bitDepth { lines.append("pixels:      \(b) bands, \(d)-bit, \(p.colourSpace ?? "?")") }
        if let a = p.hasAlpha { lines.append("alpha:       \(a ? "yes" : "no")") }
        if let i = p.hasICCProfile { lines.append("icc profile: \(i ? "yes" : "no")") }
        if let f = p.frames, f > 1 { lines.append("frames:      \(f)") }
        if let d = p.durationSeconds { lines.append(String(format: "duration:    %.2f s", d)) }
        if let c = p.container { lines.append("container:   \(c)") }
        if let b = p.bitRate { lines.append("bit rate:    \(b / 1000) kb/s") }
        if let r = p.rotation { lines.append("rotation:    \(r)° (display matrix)") }
        if let cover = p.hasCoverArt, cover { lines.append("cover art:   yes") }
        for s in p.streams ?? [] {
            var parts = ["#\(s.index) \(s.type) \(s.codec)"]
            if let w = s.width, let h = s.height { parts.append("\(w)x\(h)") }
            if let r = s.rotation { parts.append("rotated \(r)°") }
            if let f = s.frameRate { parts.append(String(format: "%.3g fps", f)) }
            if let pf = s.pixelFormat { parts.append(pf) }
            if let sr = s.sampleRate { parts.append("\(sr) Hz") }
            if let ch = s.channels { parts.append("\(ch) ch") }
            if let b = s.bitRate { parts.append("\(b / 1000) kb/s") }
            if s.coverArt == true { parts.append("cover art") }
            lines.append("stream:      " + parts.joined(separator: ", "))
        }
        print(lines.joined(separator: "\n"))
    }
}

/// `pushmedia version`: program and library versions; exit status 1 when FFmpeg's libraries
/// (opened on first use, not at start) cannot be opened.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Show the versions of PushMedia and the libraries it uses.")

    func run() throws {
        print("pushmedia \(PushMediaVersion.string)")
        let versions: [String: String]
        do {
            versions = try NativeLibraries.versions()
        } catch let error as ItemError {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
        for (name, version) in versions.sorted(by: { $0.key < $1.key }) {
            print("\(name) \(version)")
        }
    }
}
