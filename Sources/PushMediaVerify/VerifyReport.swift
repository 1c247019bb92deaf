import Foundation

/// One line of `pushmedia verify --json`: a URL's outcome (docs/verify.schema.json).
public struct URLReport: Codable, Sendable, Equatable {
    public var event = "url"
    public var source: String
    public var role: String
    public var url: String
    /// True when every downloader would use the file.
    public var ok: Bool
    /// The most important problem's code, when not ok.
    public var problem: String?
    /// Every problem's code, the most important first (empty when ok).
    public var problems: [String]
    /// What to change about ``problem``.
    public var fix: String?
    public var warnings: [String]
    /// Who downloads the URL: `ios`, `fcm`.
    public var downloaders: [String]
    /// The final response's status (absent when there was none).
    public var status: Int?
    /// Body bytes read (at most the file's size + 1).
    public var bytes: Int
    /// The file's size in the manifest.
    public var expectedBytes: Int
    /// Seconds from the request to the last byte (or to where the fetch stopped).
    public var seconds: Double
    /// Seconds to the final response's head.
    public var firstByteSeconds: Double?
    public var redirects: Int
    /// Where the redirects ended (absent without redirects).
    public var finalURL: String?
    public var contentType: String?
    public var contentLength: Int?

    public init(_ result: URLResult) {
        let o = result.observation
        source = result.target.source
        role = result.target.role.rawValue
        url = result.target.url
        ok = result.verdict.ok
        problem = result.verdict.problem?.code.rawValue
        problems = result.verdict.problems.map(\.code.rawValue)
        fix = result.verdict.problem?.fix
        warnings = result.verdict.warnings
        downloaders = result.target.rules.map(\.name)
        status = o.status
        bytes = o.bytes
        expectedBytes = result.target.expected.bytes
        seconds = Self.rounded(o.seconds)
        firstByteSeconds = o.firstByteSeconds.map(Self.rounded)
        redirects = o.redirects
        finalURL = o.redirects > 0 ? o.requested.last : nil
        contentType = o.contentType
        contentLength = o.contentLength
    }

    /// Seconds to the millisecond, as the JSON lines give them.
    public static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// The last line of `pushmedia verify --json`: counts over every URL.
public struct VerifySummary: Codable, Sendable, Equatable {
    public var event = "summary"
    /// Items whose URLs were verified (ok items of the manifest).
    public var items = 0
    /// Failed items of the manifest: they have no URLs.
    public var failedItems = 0
    public var urls = 0
    /// URLs every downloader would use.
    public var ok = 0
    /// URLs some downloader would drop.
    public var failed = 0
    /// URLs with warnings.
    public var warned = 0
    /// Body bytes read, all URLs together.
    public var bytes = 0
    /// Seconds the run took.
    public var seconds = 0.0
    /// How many URLs have each problem (a URL counts once per code).
    public var problems: [String: Int] = [:]

    public init() {}

    public mutating func add(_ result: URLResult) {
        urls += 1
        if result.verdict.ok { ok += 1 } else { failed += 1 }
        if !result.verdict.warnings.isEmpty { warned += 1 }
        bytes += result.observation.bytes
        for problem in result.verdict.problems { problems[problem.code.rawValue, default: 0] += 1 }
    }
}

extension JSONEncoder {
    /// Compact, keys sorted, slashes unescaped: one NDJSON line.
    public static var verifyLine: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
