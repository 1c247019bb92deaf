import ArgumentParser
import Foundation
import PushMediaModel
import PushMediaVerify
import PushPayload

/// `pushmedia verify`: fetches every URL a manifest publishes as the phones will, and says which
/// they would drop and why. The fetching and judging are in PushMediaVerify; this reads the
/// flags, draws progress and prints the results.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Fetch every URL a manifest publishes, as the phones will, before the campaign is sent.",
        usage: """
            pushmedia verify --manifest <file> [--base-url <url>] [--json] [--concurrency <n>]
                     [--ca-file <pem>] [--allow-host <host[:port]>] [--ios-seconds <s>] [--fcm-seconds <s>]
                     [--platforms <list>]
            """,
        discussion: """
            For every ok item, each URL a payload names (the iOS attachments, the movie or \
            audio, the image FCM's Android SDK shows) is fetched as the phone does: https only, \
            the certificate checked, redirects followed but never to http, a GET with the SDK's \
            headers, the body compared with the manifest's size and SHA-256, the time to the \
            last byte with each downloader's cut-off. With --platforms …,web the web push image \
            and icon are held to the browser's 90 s too. Prints the URLs a phone would drop first, \
            each with its fix; --json prints NDJSON, a line per URL and a summary last \
            (docs/verify.schema.json). See docs/storage.md.

            Exit status: 0 when every URL is deliverable, 1 when some are not, 2 when it could \
            not run (no manifest, no base URL, bad flags).
            """)

    @Option(name: .long, help: ArgumentHelp("The manifest (manifest.ndjson or manifest.json).", valueName: "file"))
    var manifest: String

    @Option(name: .long, help: "https base URL the outputs are served from; overrides the manifest's URLs.")
    var baseURL: String?

    @Flag(name: .long, help: "Print NDJSON: one line per URL, then a summary.")
    var json = false

    @Option(name: .long, help: "Connections at once to each host (default 4).")
    var concurrency = 4

    @Option(name: .long, help: ArgumentHelp("PEM file of CA certificates to trust besides the system's (a private CA).", valueName: "pem"))
    var caFile: String?

    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp("A host (host or host:port) redirects may go to besides the manifest's; repeatable.", valueName: "host"))
    var allowHosts: [String] = []

    @Option(name: .long, help: "Seconds each iOS attachment may take (default: each item's delivery target, from its profile).")
    var iosSeconds: Double?

    @Option(name: .long, help: "Seconds FCM's Android SDK gives its image (default 5, the SDK's).")
    var fcmSeconds: Double = 5

    @Option(
        name: .long,
        help: "The platforms the payloads address, as `payload --platforms` takes them; with web, the web image and icon are held to Chrome's 90 s."
    )
    var platforms: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !manifest.isEmpty else { throw ValidationError("--manifest must name a file") }
        if let baseURL { try Setting.checkBaseURL(baseURL, named: "--base-url") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 64, got \(concurrency)") }
        let (shortest, longest) = (VerifyLimits.shortestSeconds, VerifyLimits.longestSeconds)
        for (flag, value) in [("--ios-seconds", iosSeconds), ("--fcm-seconds", fcmSeconds)] {
            if let value, !(value >= shortest && value <= longest) {
                throw ValidationError("\(flag) must be \(shortest) to \(Int(longest)) seconds, got \(value)")
            }
        }
        if let platforms, case .failure(let unknown) = PayloadPlatform.list(platforms) {
            throw ValidationError("--platforms: \"\(unknown.name)\" is not a platform; give some of ios, android, web, huawei, amazon")
        }
        for host in allowHosts where Self.authority(host) == nil {
            throw ValidationError(
                "--allow-host \(TerminalText.escaped(host)): give a host name or address, with :port (1 to 65535) when it is not 443")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            let reason = FileManager.default.fileExists(atPath: caFile) ? "cannot be read" : "does not exist"
            throw ValidationError("--ca-file \(TerminalText.escaped(caFile)) \(reason): give a PEM file of CA certificates")
        }
    }

    func run() async throws {
        let logger = global.bootstrapLogging()
        let file = URL(fileURLWithPath: manifest)
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            printError("error: cannot read manifest \(manifest)")
            throw ExitCode(2)
        }
        let web = platforms.flatMap { try? PayloadPlatform.list($0).get() }?.contains(.web) == true
        let limits = VerifyLimits(iOSSeconds: iosSeconds, fcmSeconds: fcmSeconds, webSeconds: web ? VerifyLimits.chromiumWebSeconds : nil)
        let builder = PayloadBuilder(baseURL: baseURL)
        // A first pass counts the URLs (for progress) and collects the hosts they name: the only
        // ones verify visits.
        let survey: ManifestURLs.Survey
        do {
            survey = try ManifestURLs.survey(file, builder: builder, limits: limits)
        } catch let error as PublishedURLError {
            printError("error: \(TerminalText.escaped("\(error)"))")
            throw ExitCode(2)
        } catch {
            printError("error: cannot read manifest \(manifest): \(error)")
            throw ExitCode(2)
        }
        guard survey.urls > 0 else {
            let message = "nothing to verify: \(manifest) has no ok item (\(survey.failedItems) failed)"
            if json { print(try line(VerifySummary(survey))) } else { print(message) }
            return
        }
        let prober: URLProber
        do {
            prober = try URLProber(
                configuration: URLProber.Configuration(
                    caFile: caFile, connectionsPerHost: concurrency, maxRedirects: limits.maxRedirects,
                    allowedAuthorities: survey.authorities.union(allowHosts.compactMap(Self.authority)), longestDeadline: survey.longestDeadline),
                logger: logger)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        let verifier = Verifier(prober: prober, connectionsPerHost: concurrency, hosts: survey.authorities.count)
        let reporter = ProgressReporter(interactive: isatty(STDERR_FILENO) == 1)
        var summary = VerifySummary(survey)
        var table = VerifyTable()
        let started = ContinuousClock.now
        do {
            let urls = try ManifestURLs(file: file, builder: builder, limits: limits)
            try await verifier.run(next: urls.next) { result in
                summary.add(result)
                if json { print(try line(URLReport(result))) } else { table.add(result) }
                reporter.report(done: summary.urls, total: survey.urls, name: "\(result.target.source) \(result.target.role.rawValue)", line: nil)
            }
        } catch {
            reporter.finish()
            try? await prober.shutdown()
            printError("error: cannot verify \(manifest): \(error)")
            throw ExitCode(2)
        }
        reporter.finish()
        try? await prober.shutdown()
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        summary.seconds = URLReport.rounded(Double(seconds) + Double(attoseconds) / 1e18)
        if json {
            print(try line(summary))
        } else {
            // A line names a source and a URL from the manifest: each is one line on the screen.
            for text in table.lines(summary) { print(TerminalText.escaped(text)) }
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }

    private func line(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder.verifyLine.encode(value), as: UTF8.self)
    }

    /// `host:port` of `--allow-host host[:port]` (443 by default).
    static func authority(_ text: String) -> String? {
        let candidate = text.contains("://") ? text : "https://\(text)"
        guard let url = URL(string: candidate), url.host?.isEmpty == false, url.path.isEmpty || url.path == "/" else { return nil }
        // Foundation takes any digits as a port (99999 too); no connection can go there.
        if let port = url.port, !(1...65535).contains(port) { return nil }
        return RedirectChain.authority(of: url)
    }

    /// The command that verifies `manifest`, for `process` and `manifest` to print (a manifest
    /// in a bucket is read from a local copy).
    static func suggestion(manifest: String) -> String {
        guard manifest.hasPrefix("s3://") else { return "pushmedia verify --manifest \(shellQuoted(manifest))" }
        let name = (manifest as NSString).lastPathComponent
        return "copy \(manifest) here, then: pushmedia verify --manifest \(shellQuoted(name))"
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:=@%,".unicodeScalars.contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension VerifySummary {
    init(_ survey: ManifestURLs.Survey) {
        self.init()
        items = survey.items
        failedItems = survey.failedItems
    }
}

/// What `verify` prints for people: the URLs a phone would drop first, one line each with the
/// fix, then the ones that are fine, the warnings, and the counts. Memory is bounded: past the
/// first ``listed`` of a kind only counts are kept (``--json`` has every line).
struct VerifyTable {
    static let listed = (failures: 200, ok: 50, warnings: 100)
    private var failures: [URLResult] = []
    private var fine: [URLResult] = []
    private var warnings: [(URLResult, String)] = []
    private var unlisted = (failures: 0, ok: 0, warnings: 0)

    mutating func add(_ result: URLResult) {
        if result.verdict.ok {
            if fine.count < Self.listed.ok { fine.append(result) } else { unlisted.ok += 1 }
        } else if failures.count < Self.listed.failures {
            failures.append(result)
        } else {
            unlisted.failures += 1
        }
        for warning in result.verdict.warnings {
            if warnings.count < Self.listed.warnings { warnings.append((result, warning)) } else { unlisted.warnings += 1 }
        }
    }

    func lines(_ summary: VerifySummary) -> [String] {
        var lines: [String] = []
        let order = { (a: URLResult, b: URLResult) in (a.target.source, a.target.role.rawValue) < (b.target.source, b.target.role.rawValue) }
        for result in failures.sorted(by: order) {
            let problems = result.verdict.problems
            let also = problems.count > 1 ? " (also \(problems.dropFirst().map(\.code.rawValue).joined(separator: ", ")))" : ""
            lines.append("FAIL \(name(result)): \(problems[0].code): \(problems[0].fix)\(also) <\(result.target.url)>")
        }
        if unlisted.failures > 0 { lines.append("… and \(unlisted.failures) more a phone would drop: --json lists every URL") }
        for result in fine.sorted(by: order) {
            let o = result.observation
            lines.append("ok   \(name(result)): \(o.status ?? 0), \(formatBytes(o.bytes)) in \(String(format: "%.2f", o.seconds)) s")
        }
        if unlisted.ok > 0 { lines.append("… and \(unlisted.ok) more ok") }
        for (result, warning) in warnings.sorted(by: { order($0.0, $1.0) }) {
            lines.append("warn \(name(result)): \(warning)")
        }
        if unlisted.warnings > 0 { lines.append("… and \(unlisted.warnings) more warnings") }
        let counts = summary.problems.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let failed = summary.failed == 0 ? "" : " (\(counts))"
        let skipped =
            summary.failedItems == 0 ? "" : "; \(summary.failedItems) failed item\(summary.failedItems == 1 ? "" : "s") of the manifest have no URLs"
        lines.append(
            "\(summary.urls) URL\(summary.urls == 1 ? "" : "s") of \(summary.items) item\(summary.items == 1 ? "" : "s"): "
                + "\(summary.ok) deliverable, \(summary.failed) not\(failed); \(summary.warned) with warnings; "
                + "\(formatBytes(summary.bytes)) in \(String(format: "%.1f", summary.seconds)) s\(skipped)")
        return lines
    }

    private func name(_ result: URLResult) -> String { "\(result.target.source) \(result.target.role.rawValue)" }
}
