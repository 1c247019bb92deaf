import Foundation
import PushMediaModel
import PushMediaTesting
import Testing

/// Names (and the messages quoting them) as a terminal or a log line shows them: every control
/// character written as an escape (`TerminalText`, docs/security.md "Names on terminals and in logs").
@Suite("Names on terminals")
struct TerminalTextTests {
    @Test("C0 controls: \\t \\n \\r by name, the others (NUL, BEL, ESC, …) as \\xNN")
    func c0() {
        #expect(TerminalText.escaped("a\tb\nc\rd") == #"a\tb\nc\rd"#)
        #expect(TerminalText.escaped("\u{0}\u{1}\u{7}\u{8}\u{B}\u{C}\u{1B}\u{1F}") == #"\x00\x01\x07\x08\x0b\x0c\x1b\x1f"#)
        #expect(TerminalText.escaped("\u{1B}]0;title\u{07}") == #"\x1b]0;title\x07"#)
        #expect(TerminalText.escaped("\u{1B}[2K\u{1B}[31mred") == #"\x1b[2K\x1b[31mred"#)
        for value in UInt32(0)...0x1F {
            let escaped = TerminalText.escaped(String(Unicode.Scalar(value)!))
            #expect(escaped.hasPrefix("\\") && escaped.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "\(value)")
        }
    }

    @Test("DEL as \\x7f, the C1 controls (CSI U+009B, NEL U+0085, …) as \\u{…}")
    func delAndC1() {
        #expect(TerminalText.escaped("a\u{7F}b") == #"a\x7fb"#)
        #expect(TerminalText.escaped("\u{80}\u{85}\u{9B}31m\u{9D}0;t\u{9C}\u{9F}") == #"\u{80}\u{85}\u{9B}31m\u{9D}0;t\u{9C}\u{9F}"#)
    }

    @Test("bidi controls and the line and paragraph separators are made visible as \\u{…}")
    func bidi() {
        let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        for value in bidi + [0x2028, 0x2029] {
            let scalar = Unicode.Scalar(value)!
            #expect(TerminalText.needsEscape(scalar))
            #expect(TerminalText.escaped("a\(scalar)b") == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
        }
        #expect(TerminalText.escaped("photo-\u{202E}gpj.exe") == #"photo-\u{202E}gpj.exe"#)
    }

    @Test("everything else is left as it is: text in any script, emoji, combining marks, a backslash, NBSP")
    func unchanged() {
        for text in ["photo.jpg", "café.jpg", "cafe\u{301}.jpg", "写真/猫.png", "🐈‍⬛.gif", "صورة.jpg", "a\\x1b.jpg", "a\u{A0}b", "100%25.jpg", "", "a b"] {
            #expect(Array(TerminalText.escaped(text).utf8) == Array(text.utf8), "\(text)")
        }
    }

    @Test("keepingLineFeeds leaves LF alone and escapes everything else")
    func lineFeeds() {
        #expect(TerminalText.escaped("one\ntwo\r\u{1B}x", keepingLineFeeds: true) == "one\ntwo\\r\\x1bx")
        #expect(TerminalText.escaped("one\ntwo") == #"one\ntwo"#)
    }

    @Test("random strings (seeded): the result holds no control character, and escaping it again changes nothing")
    func property() {
        var random = SeededRandom(seed: 56)
        let pool: [UInt32] = [
            0x0, 0x7, 0x9, 0xA, 0xD, 0x1B, 0x5C, 0x7F, 0x85, 0x9B, 0x9F, 0xA0, 0x61C, 0x200E, 0x202E, 0x2066, 0x2069, 0x2028, 0xE9, 0x1F408,
        ]
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                let value = Bool.random(using: &random) ? pool.randomElement(using: &random)! : UInt32.random(in: 0x20...0x7E, using: &random)
                text.append(Unicode.Scalar(value)!)
            }
            let escaped = TerminalText.escaped(String(text))
            #expect(!escaped.unicodeScalars.contains(where: TerminalText.needsEscape), "\(escaped)")
            #expect(TerminalText.escaped(escaped) == escaped)
            #expect(escaped.unicodeScalars.count >= text.count)
        }
    }

    // MARK: - Through the binary

    /// Names that forge a progress line, retitle the terminal, move the cursor, or reverse the
    /// rest of a line.
    static let forged = "x.jpg: ok\n[99] ok     forged.jpg"
    static let title = "t\u{1B}]0;pwned\u{07}.jpg"
    static let reversed = "a\u{202E}gpj.jpg"
    static let broken = "b\r\u{1B}[2Kbad.jpg"

    @Test("process with hostile names: piped stderr and stdout hold no raw control character, show the escapes; the manifest the true names")
    func processEscapesNames() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in [Self.forged, Self.title, Self.reversed] {
            try FileManager.default.copyItem(at: Fixtures.url("photos/landscape.jpg"), to: input.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: Fixtures.url("broken/not-an-image.jpg"), to: input.appendingPathComponent(Self.broken))
        let out = folder.appendingPathComponent("out")
        let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--log-level", "debug"])
        #expect(result.status == 1, "\(result.error)")
        for (stream, text) in [("stderr", result.error), ("stdout", result.output)] {
            let raw = text.unicodeScalars.filter { TerminalText.needsEscape($0) && $0 != "\n" }
            #expect(raw.isEmpty, "\(stream) holds raw \(raw.map { String($0.value, radix: 16) })")
        }
        let lines = result.error.split(separator: "\n", omittingEmptySubsequences: false)
        let progress = lines.filter { $0.hasPrefix("[") }
        #expect(progress.count == 4, "\(progress)")
        #expect(!lines.contains { $0.hasPrefix("[99]") }, "a name drew a progress line of its own")
        #expect(progress.contains { $0.contains(#" ok     x.jpg: ok\n[99] ok     forged.jpg: "#) }, "\(progress)")
        #expect(progress.contains { $0.contains(#" ok     t\x1b]0;pwned\x07.jpg: "#) }, "\(progress)")
        #expect(progress.contains { $0.contains(#" ok     a\u{202E}gpj.jpg: "#) }, "\(progress)")
        #expect(progress.contains { $0.contains(#" failed b\r\x1b[2Kbad.jpg: unsupported_type"#) }, "\(progress)")
        // The summary on stdout lists the failed item, escaped too.
        #expect(result.output.contains(#"  failed b\r\x1b[2Kbad.jpg: unsupported_type"#), "\(result.output)")
        // The debug log's line for the failed item names it escaped, on one line.
        #expect(lines.contains { $0.contains("item failed") && $0.contains(#"b\r\x1b[2Kbad.jpg"#) }, "\(result.error)")
        // The manifest keeps the true names (JSON escapes them itself).
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let sources = Set(manifest.items.map { Array($0.source.utf8) })
        #expect(sources == Set([Self.forged, Self.title, Self.reversed, Self.broken].map { Array($0.utf8) }))
        #expect(manifest.items.filter { $0.status == .ok }.count == 3)
    }

    var pushmedia: String { CommandRunner.pushmedia }
}
