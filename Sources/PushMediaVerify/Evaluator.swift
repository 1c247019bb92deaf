import Foundation
import PushMediaModel

/// What verify concludes about one published URL: the reasons a phone would drop it (empty when
/// it is deliverable) and what is worth fixing even so.
public struct Verdict: Sendable, Equatable {
    /// In order of importance: the first is the URL's `problem`.
    public var problems: [Problem]
    public var warnings: [String]

    public init(problems: [Problem] = [], warnings: [String] = []) {
        self.problems = problems
        self.warnings = warnings
    }

    public var ok: Bool { problems.isEmpty }
    /// The most important problem.
    public var problem: Problem? { problems.first }

    fileprivate mutating func add(_ problem: Problem?) {
        guard let problem, !problems.contains(where: { $0.code == problem.code }) else { return }
        problems.append(problem)
    }
}

/// Judges what was observed of a published URL against what the manifest says it is and the
/// rules of whoever downloads it. Pure: no I/O, no clock.
public enum Evaluator {
    public static func evaluate(_ target: PublishedURL, _ observation: Observation) -> Verdict {
        var verdict = Verdict(warnings: URLWarnings.query(of: target.url))
        judge(target, observation, into: &verdict)
        verdict.add(extensionProblem(url: target.url, expected: target.expected))
        return verdict
    }

    /// Everything but the URL's own extension, in order: the connection, the status, the
    /// headers and bytes, each downloader's rule.
    private static func judge(_ target: PublishedURL, _ observation: Observation, into verdict: inout Verdict) {
        if let failure = observation.failure {
            verdict.add(problem(for: failure, observation))
            return
        }
        guard let status = observation.status, status == 200 else {
            verdict.add(statusProblem(observation))
            return
        }
        let type = contentType(served: observation.contentType, expected: target.expected.mimeType)
        verdict.add(type.problem)
        if let warning = type.warning { verdict.warnings.append(warning) }
        verdict.add(encodingProblem(observation, offered: DeviceHeaders.offeredEncodings(DeviceHeaders.of(target.rules))))
        for problem in bodyProblems(target.expected, observation) { verdict.add(problem) }
        for rule in target.rules {
            switch rule {
            case .iOS(let seconds):
                verdict.add(iOSAttachmentProblem(observation, expected: target.expected, seconds: seconds))
            case .fcmImage(let seconds):
                for problem in fcmImageProblems(observation, expected: target.expected, seconds: seconds) { verdict.add(problem) }
            case .web(let seconds):
                verdict.add(
                    lateness(observation, expected: target.expected, cutOff: seconds, code: .slowForWeb, who: "the browser's cut-off for its images"))
            }
        }
        verdict.warnings += URLWarnings.response(observation)
    }

    // MARK: - The downloaders' rules

    /// iOS: the attachment arrives within the notification's delivery target (the service
    /// extension downloads the set at once, so the set is as late as its slowest file).
    public static func iOSAttachmentProblem(_ o: Observation, expected: ExpectedFile, seconds: Double) -> Problem? {
        lateness(o, expected: expected, cutOff: seconds, code: .slowForIOS, who: "the profile's delivery target for the notification's downloads")
    }

    /// FCM's Android SDK (`ImageDownload`): `Content-Length` present and at most 1 MiB (it
    /// refuses a larger one before reading and reads at most 1 MiB), the last byte within
    /// `seconds` (5 s: past it the notification is shown without its image).
    public static func fcmImageProblems(_ o: Observation, expected: ExpectedFile, seconds: Double) -> [Problem] {
        var problems: [Problem] = []
        let limit = DownloadRule.fcmImageLimit
        if let length = o.contentLength {
            if length > limit {
                problems.append(
                    Problem(
                        .overFCMLimit, "Content-Length is \(grouped(length)) bytes: FCM's Android SDK refuses images over \(grouped(limit)) bytes"))
            }
        } else {
            problems.append(Problem(.noContentLength, "send Content-Length: FCM's image must announce its size (at most \(grouped(limit)) bytes)"))
        }
        if expected.bytes > limit, !problems.contains(where: { $0.code == .overFCMLimit }) {
            problems.append(
                Problem(.overFCMLimit, "the file is \(grouped(expected.bytes)) bytes: FCM's Android SDK refuses images over \(grouped(limit)) bytes"))
        }
        if let late = lateness(o, expected: expected, cutOff: seconds, code: .slowForFCM, who: "FCM's cut-off for its image") {
            problems.append(late)
        }
        return problems
    }

    /// The file arrived after `cutOff` (or had not arrived when the fetch gave up).
    static func lateness(_ o: Observation, expected: ExpectedFile, cutOff: Double, code: ProblemCode, who: String) -> Problem? {
        let advice = "serve it from a cache near the phones (a CDN hit, not the origin), or smaller"
        switch o.bodyEnd {
        case .complete where o.seconds > cutOff:
            return Problem(code, "the file took \(seconds(o.seconds)) on this connection, over \(who) (\(seconds(cutOff))): \(advice)")
        case .deadline where o.deadline >= cutOff:
            return Problem(
                code,
                "\(grouped(o.bytes)) of \(grouped(expected.bytes)) bytes had arrived after \(seconds(o.deadline)), over \(who) (\(seconds(cutOff))): \(advice)"
            )
        default:
            return nil
        }
    }

    // MARK: - Bytes

    /// A `Content-Encoding` other than those the request offered: the bytes verify read were
    /// not decoded (it decodes what it offers, gzip and deflate), and a downloader that did not
    /// ask for that coding cannot read them.
    static func encodingProblem(_ o: Observation, offered: Set<String>) -> Problem? {
        guard let header = o.contentEncoding else { return nil }
        let codings = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        guard let unoffered = codings.first(where: { !offered.contains($0) }) else { return nil }
        let asked = offered.subtracting(["identity"]).sorted().joined(separator: ", ")
        return Problem(
            .unofferedEncoding,
            "the server sent Content-Encoding: \(unoffered), which the request did not offer (Accept-Encoding: \(asked)): "
                + "serve the file as it is, or only in the codings the request asks for")
    }

    /// The body against the file: its size (announced and read) and its SHA-256.
    static func bodyProblems(_ expected: ExpectedFile, _ o: Observation) -> [Problem] {
        var problems: [Problem] = []
        let size = expected.bytes
        // With a Content-Encoding, Content-Length counts the encoded bytes.
        let announced = o.contentEncoding == nil ? o.contentLength : nil
        let reupload = "upload the file again and purge the CDN's copy"
        if let announced, announced < size {
            problems.append(
                Problem(
                    .truncated,
                    "the object is \(grouped(size - announced)) bytes shorter than the file (\(grouped(announced)) of \(grouped(size))): \(reupload)")
            )
        } else if let announced, announced > size {
            problems.append(
                Problem(
                    .extraBytes,
                    "the object is \(grouped(announced - size)) bytes longer than the file (\(grouped(announced)), the file \(grouped(size))): \(reupload)"
                ))
        }
        switch o.bodyEnd {
        case .complete:
            if o.bytes < size, problems.isEmpty {
                problems.append(
                    Problem(
                        .truncated,
                        "the object is \(grouped(size - o.bytes)) bytes shorter than the file (\(grouped(o.bytes)) of \(grouped(size))): \(reupload)")
                )
            } else if o.bytes > size, problems.isEmpty {
                problems.append(Problem(.extraBytes, "the body is longer than the file's \(grouped(size)) bytes: \(reupload)"))
            } else if o.bytes == size, o.sha256 != expected.sha256 {
                let served = o.sha256.map { "\($0.prefix(12))…" } ?? "unknown"
                problems.append(
                    Problem(
                        .wrongBytes,
                        "the object has the file's size but other bytes (SHA-256 \(served), the file's \(expected.sha256.prefix(12))…): \(reupload)"))
            }
        case .pastExpected where problems.isEmpty:
            if o.contentLength == nil {
                problems.append(
                    Problem(
                        .bodyOverrun,
                        "more than the file's \(grouped(size)) bytes came without a Content-Length (reading stopped one byte past them): serve the object itself, with its Content-Length"
                    ))
            } else {
                problems.append(
                    Problem(
                        .extraBytes, "the body is longer than the file's \(grouped(size)) bytes (reading stopped one byte past them): \(reupload)"))
            }
        case .closedEarly(let reason) where problems.isEmpty:
            // Whatever had arrived, the body did not end as the response said it would.
            problems.append(
                Problem(
                    .truncated,
                    "the connection ended after \(grouped(o.bytes)) of the file's \(grouped(size)) bytes (\(reason)): the CDN or origin cuts the body off"
                ))
        default:
            break
        }
        return problems
    }

    // MARK: - Headers

    /// The served `Content-Type` against the attachment's: the same media type is right, a
    /// common alias is a warning, anything else (or none) is a problem.
    static func contentType(served: String?, expected: String) -> (problem: Problem?, warning: String?) {
        guard let served, let media = mediaType(served) else {
            return (Problem(.wrongContentType, "serve Content-Type \(expected) (the server sent none)"), nil)
        }
        if media == expected { return (nil, nil) }
        if aliases[expected]?.contains(media) == true {
            return (nil, "Content-Type \(media) is an alias: \(expected) is the registered type, which every client knows")
        }
        return (Problem(.wrongContentType, "serve \(expected) (the server sent \(served))"), nil)
    }

    /// Other names some servers give the attachment types.
    static let aliases: [String: Set<String>] = [
        "image/jpeg": ["image/jpg", "image/pjpeg"],
        "image/png": ["image/x-png"],
        "audio/aiff": ["audio/x-aiff"],
        "audio/wav": ["audio/x-wav", "audio/wave", "audio/vnd.wave"],
        "audio/mpeg": ["audio/mp3", "audio/x-mp3", "audio/mpeg3"],
        "audio/mp4": ["audio/x-m4a", "audio/m4a"],
        "video/mp4": ["video/x-m4v"],
        "video/x-msvideo": ["video/avi", "video/msvideo"],
    ]

    /// `type/subtype`, lowercased, without parameters.
    static func mediaType(_ header: String) -> String? {
        let media = header.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media.contains("/") ? media : nil
    }

    /// The URL's path ends in an extension of the attachment's type.
    static func extensionProblem(url: String, expected: ExpectedFile) -> Problem? {
        guard let parsed = URL(string: url), parsed.scheme != nil else { return nil }
        let found = parsed.pathExtension.lowercased()
        let accepted = Set([expected.fileExtension.lowercased()] + (AttachmentType.forExtension(expected.fileExtension)?.fileExtensions ?? []))
        guard !accepted.contains(found) else { return nil }
        let ends = found.isEmpty ? "has no extension" : "ends in .\(found)"
        return Problem(
            .wrongExtension,
            "end the URL's path in .\(expected.fileExtension) (it \(ends)): service extensions name the downloaded file after the URL, and iOS reads the type from the name"
        )
    }

    // MARK: - Status and failures

    static func statusProblem(_ o: Observation) -> Problem {
        let status = o.status ?? 0
        let at = o.redirects > 0 ? " at \(o.requested.last ?? "")" : ""
        switch status {
        case 404, 410:
            return Problem(.notFound, "HTTP \(status)\(at): the object is not there: upload it, or fix the base URL")
        case 401, 403:
            return Problem(
                .forbidden,
                "HTTP \(status)\(at): the server refuses a GET without credentials, which is how phones ask: make the objects public, or sign the URLs"
            )
        case 500...599:
            return Problem(.serverError, "HTTP \(status)\(at): the CDN or its origin failed")
        default:
            return Problem(.unexpectedStatus, "HTTP \(status)\(at): phones need 200 with the file")
        }
    }

    static func problem(for failure: Observation.Failure, _ o: Observation) -> Problem {
        let host = o.requested.last.flatMap { URL(string: $0)?.host } ?? "the host"
        switch failure {
        case .notHTTPS:
            return Problem(.notHTTPS, "publish an https URL: App Transport Security (iOS) and Android's cleartext policy refuse http")
        case .invalidURL:
            return Problem(.invalidURL, "the URL cannot be parsed: check the base URL and the manifest")
        case .redirect(.toHTTP(let location)):
            return Problem(
                .insecureRedirect,
                "the server redirects to http (\(location)), which the phones refuse: redirect to https, or serve the file at the URL itself")
        case .redirect(.loop(let location)):
            return Problem(.redirectLoop, "the redirects come back to \(location) after \(o.redirects): fix the CDN's redirect rules")
        case .redirect(.tooMany(let limit)):
            return Problem(.tooManyRedirects, "more than \(limit) redirects, past which the phones give up: serve the file at the URL itself")
        case .redirect(.offHost(let authority)):
            return Problem(
                .redirectOffHost,
                "the server redirects to \(authority), which the manifest does not name and verify does not visit (--allow-host \(authority) lets it): publish the final URL instead"
            )
        case .redirect(.broken(let status, let location)):
            return Problem(
                .brokenRedirect, "HTTP \(status) without a Location a phone can follow (\(location.map { "\"\($0)\"" } ?? "none")): fix the redirect")
        case .certificateWrongName(let detail):
            return Problem(.certificateWrongName, "the certificate is not for \(host): serve one that names it (\(detail))")
        case .certificateUntrusted(let detail):
            return Problem(
                .certificateUntrusted,
                "the certificate is not trusted (\(detail)): serve a chain to a public CA, complete and unexpired (--ca-file for a private CA on staging)"
            )
        case .tls(let detail):
            return Problem(.tlsFailed, "TLS failed (\(detail)): phones need TLS 1.2 or later with a current cipher")
        case .connection(let detail):
            return Problem(.connectionFailed, "the connection to \(host) failed (\(detail))")
        case .invalidResponse(let detail):
            return Problem(
                .invalidResponse, "\(host) answered with bytes that are not a valid HTTP response (\(detail)): the phones drop it; fix the server")
        case .noResponse where o.redirects > 0:
            let final = o.requested.last.flatMap { URL(string: $0)?.host } ?? host
            let plural = o.redirects == 1 ? "" : "s"
            return Problem(
                .noResponse,
                "no answer within \(seconds(o.deadline)) after \(o.redirects) redirect\(plural): \(final), where the redirect\(plural) led, sent no response"
            )
        case .noResponse:
            return Problem(
                .noResponse, "no answer within \(seconds(o.deadline)): \(host) sent no response (no connection was made, or it sent nothing on it)")
        }
    }

    // MARK: - Formatting

    /// 1204 → "1,204".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// 1.5 → "1.50 s".
    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
