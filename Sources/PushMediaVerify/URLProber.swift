import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches published URLs as the phones do and records what it saw (an ``Observation``); the
/// judging is ``Evaluator``'s.
///
/// One `GET` per URL with the downloader's headers (``DeviceHeaders``), https only, the
/// certificate checked against the system's trust store (and a private CA's, with
/// ``Configuration/caFile``), redirects followed by ``RedirectChain`` (the client follows none
/// itself, so that each hop is seen and counted), the body read to one byte past the file's size
/// at most and hashed on the way, everything within the URL's deadline. Owns one `HTTPClient`:
/// call ``shutdown()`` once after the last ``observe(_:)``.
public final class URLProber: Sendable {
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates trusted besides the system's (a private CA).
        public var caFile: String?
        /// Connections kept per host (`host:port`).
        public var connectionsPerHost: Int
        /// Redirects followed at most.
        public var maxRedirects: Int
        /// `host:port` of the hosts requests may go to (``RedirectChain/authority(of:)``).
        public var allowedAuthorities: Set<String>
        /// The longest deadline of the URLs to fetch, in seconds: a connection not made by then
        /// is given up (the client finishes its connection attempts before it shuts down, so
        /// this also bounds how long a run can linger at its end).
        public var longestDeadline: Double

        public init(
            caFile: String? = nil, connectionsPerHost: Int = 4, maxRedirects: Int = 16, allowedAuthorities: Set<String>,
            longestDeadline: Double = 20
        ) {
            self.caFile = caFile
            self.connectionsPerHost = connectionsPerHost
            self.maxRedirects = maxRedirects
            self.allowedAuthorities = allowedAuthorities
            self.longestDeadline = longestDeadline
        }
    }

    /// A CA file that cannot be used.
    public struct CAFileError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot use --ca-file \(path): \(reason)" }
    }

    public let configuration: Configuration
    private let client: HTTPClient
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "pushmedia.verify")) throws {
        self.configuration = configuration
        self.logger = logger
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile = configuration.caFile {
            // NIOSSL says only `failedToLoadCertificate` for a file that is missing, unreadable or
            // not PEM: which of them it is, is told here.
            guard FileManager.default.fileExists(atPath: caFile) else { throw CAFileError(path: caFile, reason: "no such file") }
            guard FileManager.default.isReadableFile(atPath: caFile) else { throw CAFileError(path: caFile, reason: "cannot be read") }
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !certificates.isEmpty else { throw CAFileError(path: caFile, reason: "no PEM certificate in it") }
                tls.additionalTrustRoots = [.certificates(certificates)]
            } catch let error as CAFileError {
                throw error
            } catch {
                throw CAFileError(path: caFile, reason: "not a PEM file of certificates (\(error))")
            }
        }
        var http = HTTPClient.Configuration(tlsConfiguration: tls)
        http.redirectConfiguration = .disallow
        // The URL's deadline bounds each request; a failed connection fails its request at once.
        let connect = Int64((URLProber.clamped(configuration.longestDeadline) * 1000).rounded(.up))
        http.timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(connect), read: nil)
        http.connectionPool.retryConnectionEstablishment = false
        // The Verifier holds fetches to connectionsPerHost per host; the pool has room for
        // three times more, so that a request never waits behind connections still closing (a
        // body given up, a deadline passed) with its own deadline running.
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.poolSize(configuration)
        // The phones decode gzip and deflate; so does verify, to compare the bytes they get.
        http.decompression = .enabled(limit: .size(64 << 20))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http, backgroundActivityLogger: logger)
    }

    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Fetches `target.url` within `target.deadline` seconds.
    public func observe(_ target: PublishedURL) async -> Observation {
        let deadline = Self.clamped(target.deadline)
        guard let url = URL(string: target.url), url.host?.isEmpty == false, let scheme = url.scheme?.lowercased() else {
            return Observation(requested: [target.url], failure: .invalidURL, deadline: deadline)
        }
        guard scheme == "https" else {
            return Observation(requested: [target.url], failure: .notHTTPS, deadline: deadline)
        }
        let clock = ContinuousClock()
        let start = clock.now
        return await withTaskGroup(of: Observation?.self) { group in
            group.addTask { await self.fetch(url, target, start: start, clock: clock) }
            group.addTask {
                try? await Task.sleep(until: start + .seconds(deadline), clock: clock)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            // The deadline: the fetch, cancelled, returns what it had seen.
            while let next = await group.next() {
                if let partial = next { return partial }
            }
            return Observation(requested: [target.url], failure: .noResponse, seconds: deadline, deadline: deadline)
        }
    }

    /// The requests of one URL, its redirects followed, and its body read. Cancelled (the
    /// deadline), it returns what it had seen: no answer yet, or a body not finished.
    private func fetch(_ url: URL, _ target: PublishedURL, start: ContinuousClock.Instant, clock: ContinuousClock) async -> Observation {
        var seen = Observation(requested: [url.absoluteString], deadline: target.deadline)
        func elapsed() -> Double {
            let (seconds, attoseconds) = (clock.now - start).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
        var chain = RedirectChain(start: url, limit: configuration.maxRedirects, allowedAuthorities: configuration.allowedAuthorities)
        let headers = DeviceHeaders.of(target.rules)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(Self.clamped(target.deadline) * 1e9))
        // A GET whose connection closed before any answer is sent again: a server that closes
        // idle keep-alive connections without `Connection: close` leaves the pool connections
        // that are already dead when a request goes out on one. The phones' stacks do the same
        // (NSURLSession and OkHttp retry an idempotent request on a fresh connection). The pool
        // may hold several dead ones (all closed at once), so as many tries as it holds
        // connections, plus one on a new connection; past that, the close is the server's answer.
        var retries = Self.poolSize(configuration) + 1
        while true {
            var request = HTTPClientRequest(url: chain.current.absoluteString)
            request.method = .GET
            for header in headers { request.headers.add(name: header.name, value: header.value) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline, logger: logger)
            } catch {
                if retries > 0, !Task.isCancelled, Self.closedBeforeAnswer(error) {
                    retries -= 1
                    continue
                }
                seen.failure = Task.isCancelled ? .noResponse : Self.failure(error)
                seen.seconds = elapsed()
                return seen
            }
            let status = Int(response.status.code)
            switch chain.next(status: status, location: response.headers.first(name: "location")) {
            case .follow(let next):
                seen.requested.append(next.absoluteString)
                await Self.drain(response)
                continue
            case .stop(let stop):
                seen.status = status
                seen.failure = .redirect(stop)
                seen.seconds = elapsed()
                return seen
            case .final:
                break
            }
            seen.status = status
            seen.firstByteSeconds = elapsed()
            seen.contentType = response.headers.first(name: "content-type")
            seen.contentLength = response.headers.first(name: "content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            seen.contentEncoding = response.headers.first(name: "content-encoding")
            seen.cacheControl = response.headers[canonicalForm: "cache-control"].map(String.init).joined(separator: ", ").nonEmpty
            guard status == 200 else {
                seen.seconds = elapsed()
                await Self.drain(response)
                return seen
            }
            await read(response.body, expected: target.expected.bytes, into: &seen)
            seen.seconds = elapsed()
            return seen
        }
    }

    /// Reads a small body that is not the file (a redirect's, an error page) to its end, so that
    /// its connection goes back to the pool instead of being cut (a connection cut mid-body
    /// lingers in the pool while it closes); past 64 KiB it is given up.
    private static func drain(_ response: HTTPClientResponse) async {
        _ = try? await response.body.collect(upTo: 64 << 10)
    }

    /// Connections the pool keeps per host.
    static func poolSize(_ configuration: Configuration) -> Int { 4 * max(1, configuration.connectionsPerHost) }

    /// `seconds` within ``VerifyLimits/shortestSeconds``…``VerifyLimits/longestSeconds`` (NaN:
    /// the shortest), so that a conversion to nanoseconds or milliseconds never overflows.
    static func clamped(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds > 0 ? VerifyLimits.longestSeconds : VerifyLimits.shortestSeconds }
        return min(VerifyLimits.longestSeconds, max(VerifyLimits.shortestSeconds, seconds))
    }

    /// Reads the body to its end or one byte past `expected`, hashing what it reads.
    private func read(_ body: HTTPClientResponse.Body, expected: Int, into seen: inout Observation) async {
        // The manifest's numbers are range-checked on reading; a negative size is still never a
        // negative count here.
        let expected = max(0, expected)
        var hash = SHA256()
        var bytes = 0
        do {
            for try await chunk in body {
                let take = min(chunk.readableBytes, expected + 1 - bytes)
                chunk.withUnsafeReadableBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(take))) }
                bytes += take
                if bytes > expected {
                    seen.bytes = bytes
                    seen.bodyEnd = .pastExpected
                    return
                }
            }
            seen.bytes = bytes
            seen.bodyEnd = .complete
            seen.sha256 = hash.finalize().map { String(format: "%02x", $0) }.joined()
        } catch {
            seen.bytes = bytes
            seen.bodyEnd = Task.isCancelled ? .deadline : .closedEarly(Self.describe(error))
        }
    }

    /// Whether `error` says the connection closed before a response head came: the server
    /// closed it (or reset it) with the request on its way, which a request sent again on a new
    /// connection does not meet.
    static func closedBeforeAnswer(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return error == .remoteConnectionClosed
        }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed: return true
            default: return false
            }
        }
        if let error = error as? IOError {
            return [ECONNRESET, EPIPE].contains(error.errnoCode)
        }
        return false
    }

    /// What a failed request says about the connection.
    static func failure(_ error: any Error) -> Observation.Failure {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return .certificateWrongName(error.description)
        }
        if let error = error as? NIOSSLError {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") { return .certificateUntrusted(text) }
            return .tls(text)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .cancelled:
                return .noResponse
            default:
                return .connection(describe(error))
            }
        }
        if let error = error as? HTTPParserError { return .invalidResponse(Self.parserProblem(error)) }
        let type = String(reflecting: Swift.type(of: error))
        if type.contains("NIOSSL") || type.contains("BoringSSL") { return .tls(String(describing: error)) }
        return .connection(describe(error))
    }

    /// What an HTTP parser error says of the answer, in words.
    static func parserProblem(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidContentLength, .unexpectedContentLength: "its Content-Length is not a usable number"
        case .invalidStatus, .invalidVersion, .invalidConstant: "its status line is not HTTP/1.1's"
        case .invalidHeaderToken, .headerOverflow, .lfExpected, .invalidCharactersUsed: "a header line is broken"
        case .invalidChunkSize: "a chunk size is not a number"
        default: "\(error)"
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return "closed by the server" }
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
