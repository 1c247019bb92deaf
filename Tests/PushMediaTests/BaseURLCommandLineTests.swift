import Foundation
import PushMediaModel
import Testing

/// `--base-url` (and PUSHMEDIA_BASE_URL) as `pushmedia` checks it: a prefix every attachment's
/// URL is made from, refused with exit 2 and the reason when it cannot be one.
@Suite("Command line: --base-url")
struct BaseURLCommandLineTests {
    let pushmedia = CommandRunner.pushmedia

    /// Each form that breaks the URLs made from it, and the reason the message must give.
    static let badForms: [(String, String)] = [
        ("https://cdn.example.com/x?a=1", "has a query"),
        ("https://cdn.example.com/x?", "has a query"),
        ("https://cdn.example.com/x#frag", "has a fragment"),
        ("https://cdn.example.com/x?a=1#frag", "has a query"),
        ("https://user:pass@cdn.example.com/x", "has userinfo"),
        ("https://user@cdn.example.com/x", "has userinfo"),
        ("https://cdn.example.com/x\ny", "contains a control character (U+000A)"),
        ("https://cdn.example.com/x\ry", "contains a control character (U+000D)"),
        ("https://cdn.example.com/x\ty", "contains a control character (U+0009)"),
        ("https://cdn.example.com/x\u{7F}", "contains a control character (U+007F)"),
        ("https://cdn.example.com/x\u{1B}]0;title\u{07}", "contains a control character (U+001B)"),
        ("https://cdn.example.com/x\u{85}", "contains a control character (U+0085)"),
        ("https://cdn.example.com/\u{202E}x", "contains a control character (U+202E)"),
        ("https://cdn.example.com/a b", "contains whitespace"),
        ("https://cdn.example.com/a\u{A0}b", "contains whitespace (U+00A0)"),
        ("https://cdn.example.com/\"x", #"contains ", which a URL cannot hold unescaped: write it %22"#),
        ("https://cdn.example.com/<x>", "contains <, which a URL cannot hold unescaped: write it %3C"),
        ("https://cdn.example.com/a\\b", #"contains \, which a URL cannot hold unescaped: write it %5C"#),
        ("https://cdn.example.com/{x}", "contains {, which a URL cannot hold unescaped: write it %7B"),
        ("https://cdn.example.com/50%", "has a % that is not followed by two hex digits"),
        ("https://cdn.example.com/%zz", "has a % that is not followed by two hex digits"),
        ("https://cdn.example.com/café", "contains U+00E9, outside ASCII"),
        ("https://[::1/x", "is not a valid URL"),
        ("http://cdn.example.com/x", "uses http, not https"),
        ("cdn.example.com/x", "is not absolute (no scheme)"),
        ("https:///x", "has no host"),
    ]

    /// The bad form as the message shows it: control characters escaped, never raw.
    static func shown(_ url: String) -> String { TerminalText.escaped(url) }

    @Test("process refuses each bad --base-url with exit 2, the reason and the value escaped", arguments: badForms)
    func processRefuses(url: String, reason: String) throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let result = try CommandRunner.run(pushmedia, ["process", folder.path, "--out", out.path, "--base-url", url])
        #expect(result.status == 2, "\(result.status) \(result.error)")
        #expect(result.error.contains("--base-url \"\(Self.shown(url))\" \(reason)"), "\(result.error)")
        #expect(!result.error.unicodeScalars.contains { TerminalText.needsEscape($0) && $0 != "\n" }, "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
    }

    @Test("PUSHMEDIA_BASE_URL is checked the same way, and named in the message")
    func environmentRefused() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        for (url, reason) in [("https://cdn.example.com/x#frag", "has a fragment"), ("https://cdn.example.com/x\ny", "contains a control character")]
        {
            environment["PUSHMEDIA_BASE_URL"] = url
            let result = try CommandRunner.run(
                pushmedia, ["process", folder.path, "--out", folder.appendingPathComponent("out").path], environment: environment)
            #expect(result.status == 2, "\(result.status) \(result.error)")
            #expect(result.error.contains("PUSHMEDIA_BASE_URL \"\(Self.shown(url))\" \(reason)"), "\(result.error)")
        }
    }

    @Test("manifest, payload and verify refuse a bad --base-url with exit 2 before reading anything")
    func otherCommandsRefuse() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("manifest.json").path
        let queue = "sqlite:" + folder.appendingPathComponent("q.sqlite").path
        for (url, reason) in [("https://cdn.example.com/x?a=1", "has a query"), ("https://u:p@cdn.example.com/x", "has userinfo")] {
            let commands: [[String]] = [
                ["manifest", "--queue", queue, "--campaign", "c", "--out", manifest, "--base-url", url],
                ["payload", "--manifest", manifest, "--item", "a.jpg", "--format", "apns", "--title", "T", "--base-url", url],
                ["verify", "--manifest", manifest, "--base-url", url],
            ]
            for arguments in commands {
                let result = try CommandRunner.run(pushmedia, arguments)
                #expect(result.status == 2, "\(arguments[0]): \(result.status) \(result.error)")
                #expect(result.error.contains("--base-url \"\(url)\" \(reason)"), "\(arguments[0]): \(result.error)")
            }
        }
        #expect(
            !FileManager.default.fileExists(atPath: manifest)
                && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("q.sqlite").path))
    }

    @Test("a good base URL still works: with a trailing slash the URLs have one / before the file, as without")
    func goodURL() throws {
        let input = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: input) }
        try Fixtures.copy(["photos/landscape.jpg"], into: input)
        for base in ["https://cdn.example.com/c/", "https://cdn.example.com:8443/c%20d"] {
            let out = try Fixtures.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: out) }
            let result = try CommandRunner.run(pushmedia, ["process", input.path, "--out", out.path, "--base-url", base])
            #expect(result.status == 0, "\(base): \(result.error)")
            let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
            let attachments = manifest.items.flatMap(\.attachments)
            #expect(!attachments.isEmpty)
            let prefix = base.hasSuffix("/") ? base : base + "/"
            for attachment in attachments {
                #expect(attachment.url == prefix + attachment.file, "\(attachment.url ?? "no url")")
            }
            #expect(result.output.contains("verify:"), "a base URL makes process print the verify command")
        }
    }
}
