import Foundation
import PushMediaModel
import PushMediaVerify
import Testing

/// xorshift64*: a small generator that gives the same sequence for a seed on every platform, so
/// a failing case can be run again.
struct Xorshift: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Published URLs and what a correct server shows of them, at random.
struct Cases {
    var rng: Xorshift

    static let types: [(mime: String, ext: String)] = [
        ("image/jpeg", "jpg"), ("image/png", "png"), ("image/gif", "gif"), ("video/mp4", "mp4"), ("audio/mp4", "m4a"), ("audio/mpeg", "mp3"),
    ]

    mutating func target() -> PublishedURL {
        let type = Self.types.randomElement(using: &rng)!
        let bytes = Int.random(in: 1...2_000_000, using: &rng)
        let sha = String((0..<64).map { _ in "0123456789abcdef".randomElement(using: &rng)! })
        var rules: [DownloadRule] = []
        if Bool.random(using: &rng) || type.mime.hasPrefix("image") == false { rules.append(.iOS(seconds: Double.random(in: 0.5...30, using: &rng))) }
        if type.mime.hasPrefix("image"), rules.isEmpty || Bool.random(using: &rng) {
            rules.append(.fcmImage(seconds: Double.random(in: 0.5...10, using: &rng)))
        }
        return PublishedURL(
            source: "a/b-\(bytes).src", role: type.mime.hasPrefix("image") ? .expanded : .media,
            url: "https://cdn.example.com/c/\(sha.prefix(8))-x.\(type.ext)",
            expected: ExpectedFile(bytes: bytes, sha256: sha, mimeType: type.mime, fileExtension: type.ext), rules: rules)
    }

    /// What a correct server shows of `target`, in time for every downloader.
    mutating func clean(_ target: PublishedURL) -> Observation {
        let fastest = target.rules.map(\.seconds).min() ?? 1
        return Self.clean(target, seconds: Double.random(in: 0...(fastest * 0.99), using: &rng))
    }

    /// The same, the last byte after `seconds`.
    static func clean(_ target: PublishedURL, seconds: Double = 0.01) -> Observation {
        Observation(
            requested: [target.url], status: 200, contentType: target.expected.mimeType, contentLength: target.expected.bytes,
            cacheControl: "public, max-age=31536000, immutable", bytes: target.expected.bytes, sha256: target.expected.sha256,
            bodyEnd: .complete, firstByteSeconds: 0.01, seconds: seconds, deadline: target.deadline)
    }
}

@Suite("Evaluator: the pure checks of an observed URL")
struct EvaluatorTests {
    /// Only FCM images may be over 1 MiB in these cases when FCM does not download them.
    static func fits(_ target: PublishedURL) -> Bool {
        !isFCM(target) || target.expected.bytes <= DownloadRule.fcmImageLimit - 10_000
    }

    /// A JPEG of `bytes` bytes at `url`, for `rules`.
    static func jpeg(
        _ role: ModelAttachment.Role = .thumbnail, url: String = "https://cdn.example.com/x-thumb.jpg", bytes: Int = 1000,
        rules: [DownloadRule] = [.iOS(seconds: 20)]
    ) -> PublishedURL {
        PublishedURL(
            source: "a.jpg", role: role, url: url,
            expected: ExpectedFile(bytes: bytes, sha256: String(repeating: "a", count: 64), mimeType: "image/jpeg", fileExtension: "jpg"),
            rules: rules)
    }

    static func isFCM(_ target: PublishedURL) -> Bool {
        target.rules.contains { if case .fcmImage = $0 { true } else { false } }
    }

    @Test("a correct, fast server is ok, without warnings, for any file and downloader")
    func cleanIsOK() {
        var cases = Cases(rng: Xorshift(seed: 1))
        for _ in 0..<500 {
            let target = cases.target()
            guard Self.fits(target) else { continue }
            let verdict = Evaluator.evaluate(target, cases.clean(target))
            #expect(verdict.ok && verdict.warnings.isEmpty, "\(target) \(verdict)")
        }
    }

    /// An answer of `status` whose body is not read.
    static func answered(_ status: Int) -> @Sendable (PublishedURL, inout Observation) -> Void {
        { _, o in
            o.status = status
            o.bodyEnd = .notRead
        }
    }

    /// One thing wrong with a correct answer, and the one code it must give.
    static let mutations: [(name: String, code: ProblemCode, change: @Sendable (PublishedURL, inout Observation) -> Void)] = [
        ("wrong type", .wrongContentType, { _, o in o.contentType = "application/octet-stream" }),
        ("no type", .wrongContentType, { _, o in o.contentType = nil }),
        (
            "404", .notFound,
            { _, o in
                o.status = 404
                o.bodyEnd = .notRead
                o.bytes = 0
                o.sha256 = nil
            }
        ),
        ("410", .notFound, answered(410)),
        ("403", .forbidden, answered(403)),
        ("401", .forbidden, answered(401)),
        ("503", .serverError, answered(503)),
        ("206", .unexpectedStatus, answered(206)),
        (
            "shorter object", .truncated,
            { t, o in
                let short = max(0, t.expected.bytes - 1204)
                o.contentLength = short
                o.bytes = short
                o.sha256 = "0"
            }
        ),
        (
            "cut off", .truncated,
            { t, o in
                o.bytes = t.expected.bytes / 2
                o.sha256 = nil
                o.bodyEnd = .closedEarly("closed by the server")
            }
        ),
        (
            "longer object", .extraBytes,
            { t, o in
                o.contentLength = t.expected.bytes + 312
                o.bytes = t.expected.bytes + 1
                o.sha256 = nil
                o.bodyEnd = .pastExpected
            }
        ),
        (
            "endless", .bodyOverrun,
            { t, o in
                o.contentLength = nil
                o.bytes = t.expected.bytes + 1
                o.sha256 = nil
                o.bodyEnd = .pastExpected
            }
        ),
        ("other bytes", .wrongBytes, { _, o in o.sha256 = String(repeating: "f", count: 64) }),
        (
            "to http", .insecureRedirect,
            { t, o in
                o.failure = .redirect(.toHTTP(t.url.replacingOccurrences(of: "https:", with: "http:")))
                o.status = 301
            }
        ),
        (
            "loop", .redirectLoop,
            { t, o in
                o.failure = .redirect(.loop(t.url))
                o.requested += ["https://cdn.example.com/b"]
            }
        ),
        ("too many", .tooManyRedirects, { _, o in o.failure = .redirect(.tooMany(limit: 16)) }),
        ("elsewhere", .redirectOffHost, { _, o in o.failure = .redirect(.offHost("origin.example.net:443")) }),
        ("no location", .brokenRedirect, { _, o in o.failure = .redirect(.broken(status: 302, location: nil)) }),
        ("wrong name", .certificateWrongName, { _, o in o.failure = .certificateWrongName("Couldn't find cdn.example.com") }),
        ("untrusted", .certificateUntrusted, { _, o in o.failure = .certificateUntrusted("CERTIFICATE_VERIFY_FAILED") }),
        ("tls", .tlsFailed, { _, o in o.failure = .tls("handshake failed") }),
        ("refused", .connectionFailed, { _, o in o.failure = .connection("connection refused") }),
        ("garbled", .invalidResponse, { _, o in o.failure = .invalidResponse("its Content-Length is not a usable number") }),
        // The file's own bytes, labelled with a coding no downloader offered.
        ("br", .unofferedEncoding, { _, o in o.contentEncoding = "br" }),
        (
            "silent", .noResponse,
            { _, o in
                o.failure = .noResponse
                o.seconds = o.deadline
            }
        ),
        ("http", .notHTTPS, { _, o in o.failure = .notHTTPS }),
    ]

    @Test("one thing wrong gives its code and no other, whatever the file and downloader")
    func eachMutationHasItsCode() {
        var cases = Cases(rng: Xorshift(seed: 2))
        for round in 0..<100 {
            let target = cases.target()
            guard Self.fits(target), target.expected.bytes > 1204 else { continue }
            for mutation in Self.mutations {
                var observation = cases.clean(target)
                mutation.change(target, &observation)
                let verdict = Evaluator.evaluate(target, observation)
                // A body without Content-Length is also one FCM's SDK cannot size.
                let also: [ProblemCode] = mutation.code == .bodyOverrun && Self.isFCM(target) ? [.noContentLength] : []
                #expect(verdict.problems.map(\.code) == [mutation.code] + also, "round \(round), \(mutation.name): \(verdict.problems)")
                #expect(verdict.problem?.fix.isEmpty == false)
            }
        }
    }

    @Test("ok only when a 200 brought the file's exact bytes, of its type, in time, for random observations")
    func okMeansTheFile() {
        var cases = Cases(rng: Xorshift(seed: 3))
        var rng = Xorshift(seed: 4)
        var oks = 0
        for _ in 0..<2000 {
            let target = cases.target()
            var o = cases.clean(target)
            if Bool.random(using: &rng) { o.status = [200, 200, 200, 404, 403, 500, 206, 304].randomElement(using: &rng) }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                o.contentType = ["image/jpeg", "video/mp4", "text/html", "image/jpg", nil].randomElement(using: &rng)!
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                o.contentLength = [nil, target.expected.bytes - 1, target.expected.bytes + 1, 2_000_000].randomElement(using: &rng)!
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                o.bodyEnd = [.complete, .pastExpected, .deadline, .closedEarly("reset")].randomElement(using: &rng)!
                o.bytes = [0, target.expected.bytes - 1, target.expected.bytes, target.expected.bytes + 1].randomElement(using: &rng)!
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { o.seconds = Double.random(in: 0...40, using: &rng) }
            if Int.random(in: 0..<8, using: &rng) == 0 { o.sha256 = nil }
            let verdict = Evaluator.evaluate(target, o)
            #expect(Set(verdict.problems.map(\.code)).count == verdict.problems.count, "codes once each")
            guard verdict.ok else { continue }
            oks += 1
            #expect(o.status == 200 && o.bodyEnd == .complete && o.bytes == target.expected.bytes && o.sha256 == target.expected.sha256)
            #expect(o.contentType == target.expected.mimeType || o.contentType == "image/jpg")
            #expect(target.rules.allSatisfy { o.seconds <= $0.seconds })
            if Self.isFCM(target) {
                #expect(o.contentLength != nil && o.contentLength! <= DownloadRule.fcmImageLimit)
            }
        }
        #expect(oks > 50, "the random cases reach ok too")
    }

    @Test("late files: each downloader's cut-off, and a fetch that gave up")
    func lateness() {
        let target = Self.jpeg(
            .expanded, url: "https://cdn.example.com/x-expanded.jpg", bytes: 1000, rules: [.iOS(seconds: 20), .fcmImage(seconds: 5)])
        var o = Cases.clean(target)
        o.seconds = 7.5
        #expect(Evaluator.evaluate(target, o).problems.map(\.code) == [.slowForFCM])
        o.seconds = 21
        #expect(Evaluator.evaluate(target, o).problems.map(\.code) == [.slowForIOS, .slowForFCM])
        o.bodyEnd = .deadline
        o.bytes = 400
        o.sha256 = nil
        o.seconds = 20
        o.deadline = 20
        let gaveUp = Evaluator.evaluate(target, o)
        #expect(gaveUp.problems.map(\.code) == [.slowForIOS, .slowForFCM])
        #expect(gaveUp.problem?.fix.contains("400 of 1,000 bytes had arrived after 20.00 s") == true, "\(gaveUp)")
    }

    @Test("the web's cut-off: a web push image late past 90 s is slow_for_web, within it ok")
    func webLateness() {
        let target = Self.jpeg(
            .android, url: "https://cdn.example.com/x-android.jpg", bytes: 1000, rules: [.fcmImage(seconds: 5), .web(seconds: 90)])
        var o = Cases.clean(target)
        o.seconds = 60
        #expect(Evaluator.evaluate(target, o).problems.map(\.code) == [.slowForFCM])
        o.seconds = 91
        let late = Evaluator.evaluate(target, o)
        #expect(late.problems.map(\.code) == [.slowForFCM, .slowForWeb])
        #expect(late.problems.last?.fix.contains("over the browser's cut-off for its images (90.00 s)") == true, "\(late)")
    }

    @Test("FCM's image: Content-Length present and at most 1 MiB")
    func fcmImage() {
        let target = Self.jpeg(.expanded, url: "https://cdn.example.com/x-expanded.jpg", bytes: 1000, rules: [.fcmImage(seconds: 5)])
        var o = Cases.clean(target)
        o.contentLength = nil
        #expect(Evaluator.evaluate(target, o).problems.map(\.code) == [.noContentLength])
        // The same body for iOS alone is fine: NSURLSession reads a body without Content-Length.
        let iOS = PublishedURL(source: target.source, role: .thumbnail, url: target.url, expected: target.expected, rules: [.iOS(seconds: 20)])
        #expect(Evaluator.evaluate(iOS, o).ok)
        o.contentLength = DownloadRule.fcmImageLimit + 1
        #expect(Evaluator.evaluate(target, o).problems.map(\.code) == [.extraBytes, .overFCMLimit])
        let big = PublishedURL(
            source: "b.jpg", role: .expanded, url: target.url,
            expected: ExpectedFile(bytes: 1_100_000, sha256: target.expected.sha256, mimeType: "image/jpeg", fileExtension: "jpg"),
            rules: [.fcmImage(seconds: 5)])
        var whole = Cases.clean(big)
        whole.seconds = 0.1
        #expect(Evaluator.evaluate(big, whole).problems.map(\.code) == [.overFCMLimit])
    }

    @Test("the fix says what to change, with the facts")
    func fixes() {
        let target = Self.jpeg(.thumbnail, url: "https://cdn.example.com/x-thumb.jpg", bytes: 10_744, rules: [.iOS(seconds: 20)])
        var o = Cases.clean(target)
        o.contentType = "text/html; charset=utf-8"
        #expect(Evaluator.evaluate(target, o).problem?.fix == "serve image/jpeg (the server sent text/html; charset=utf-8)")
        o = Cases.clean(target)
        o.contentLength = 9_540
        o.bytes = 9_540
        #expect(Evaluator.evaluate(target, o).problem?.fix.hasPrefix("the object is 1,204 bytes shorter than the file") == true)
        o = Cases.clean(target)
        o.contentType = "image/jpg"
        let alias = Evaluator.evaluate(target, o)
        #expect(alias.ok && alias.warnings.count == 1 && alias.warnings[0].contains("alias"))
    }

    @Test("the URL's extension: the file's, or another of its type; case does not matter")
    func extensions() {
        func verdict(_ url: String) -> [ProblemCode] {
            let target = Self.jpeg(url: url, bytes: 10)
            var o = Cases.clean(target)
            o.cacheControl = "max-age=31536000"
            return Evaluator.evaluate(target, o).problems.map(\.code)
        }
        #expect(verdict("https://cdn.example.com/x-thumb.jpg") == [])
        #expect(verdict("https://cdn.example.com/x-thumb.JPEG") == [])
        #expect(verdict("https://cdn.example.com/x-thumb.jpg?v=2") == [])
        #expect(verdict("https://cdn.example.com/x-thumb") == [.wrongExtension])
        #expect(verdict("https://cdn.example.com/x-thumb.png") == [.wrongExtension])
        #expect(verdict("https://cdn.example.com/image?id=4") == [.wrongExtension])
    }

    @Test("warnings: caching, tokens and query strings, redirects, compression; none makes a URL not ok")
    func warnings() {
        let target = Self.jpeg(
            .thumbnail,
            url:
                "https://bucket.s3.amazonaws.com/x-thumb.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T120000Z&X-Amz-Expires=3600&X-Amz-Signature=ab",
            bytes: 10, rules: [.iOS(seconds: 20)])
        var o = Cases.clean(target)
        o.cacheControl = nil
        o.contentEncoding = "gzip"
        o.requested.append("https://bucket.s3.amazonaws.com/moved/x-thumb.jpg")
        let verdict = Evaluator.evaluate(target, o)
        #expect(verdict.ok)
        #expect(verdict.warnings.count == 4, "\(verdict.warnings)")
        #expect(verdict.warnings[0].contains("X-Amz-Signature") && verdict.warnings[0].contains("expires at 2026-12-01T13:00:00Z"))
        #expect(verdict.warnings.contains { $0.hasPrefix("1 redirect to https://bucket.s3.amazonaws.com/moved/x-thumb.jpg") })
        #expect(verdict.warnings.contains { $0.hasPrefix("no Cache-Control") })
        #expect(verdict.warnings.contains { $0.contains("Content-Encoding: gzip") })
        for (header, warns) in [
            ("public, max-age=31536000, immutable", false), ("max-age=86400", false), ("max-age=600", true), ("no-store", true),
            ("private, max-age=31536000", true), ("public, s-maxage=60, max-age=31536000", true),
        ] {
            var cached = Cases.clean(target)
            cached.cacheControl = header
            let cacheWarnings = Evaluator.evaluate(target, cached).warnings.filter { $0.contains("Cache-Control") }
            #expect(cacheWarnings.isEmpty != warns, "\(header)")
        }
    }
}
