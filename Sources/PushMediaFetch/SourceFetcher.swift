import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Downloads http(s) media sources to temporary files, with size limits, timeouts, a redirect
/// limit and SSRF protection.
///
/// One fetcher owns one `HTTPClient` (on NIO's shared event loop group); it is `Sendable` and may
/// be used from many tasks at once. Call ``shutdown()`` exactly once when done — the client
/// asserts if it is released without being shut down.
///
/// ## SSRF protection
/// Unless ``SourceFetcherConfiguration/allowPrivateSources`` is set, for the first URL and again
/// for every redirect hop the fetcher:
/// 1. refuses schemes other than http/https and URLs with userinfo;
/// 2. resolves the host with the ``HostResolver`` (`getaddrinfo`) and refuses the hop if *any*
///    returned address is refused by the ``AddressPolicy`` — literal hosts in odd spellings
///    (`2130706433`, `0x7f.1`) are caught because the resolved address is what is checked;
/// 3. after the HTTP client opens a connection, checks the socket's actual peer address again
///    (via the client's connection initializer) and closes the connection, before any request
///    is written on it, if the peer is refused.
///
/// Redirects are followed by the fetcher itself (the client's automatic following is disabled).
///
/// **DNS rebinding, residual risk:** the client does its own `getaddrinfo`, so a name can resolve
/// to a public address for step 2 and to a private one when the client connects. Step 3 closes
/// that window for HTTP requests: no request bytes are sent to a refused peer. What remains is
/// that the TCP handshake (and, for https, the TLS handshake including the ClientHello) may
/// already have reached the refused address before the connection is dropped. The fetcher cannot
/// pin the checked address in the client (`dnsOverride` is per client, not per request), so this
/// is the narrowest window available with one shared client.
public final class SourceFetcher: Sendable {
    /// The configuration in force.
    public let configuration: SourceFetcherConfiguration
    private let client: HTTPClient
    private let resolver: any HostResolver
    private let logger: Logger

    /// Creates a fetcher and its HTTP client.
    ///
    /// - Parameters:
    ///   - configuration: limits and policy.
    ///   - resolver: resolves hosts for the address check (default: `getaddrinfo`).
    ///   - logger: receives debug lines with redacted URLs.
    public init(
        configuration: SourceFetcherConfiguration,
        resolver: any HostResolver = SystemHostResolver(),
        logger: Logger = Logger(label: "pushmedia.fetch")
    ) {
        self.configuration = configuration
        self.resolver = resolver
        self.logger = logger

        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(configuration.connectTimeout),
            read: TimeAmount(configuration.readTimeout)
        )
        clientConfiguration.decompression = .disabled
        // A failed connection fails its request at once with the real cause (and lets the
        // post-connect address check surface as `source_forbidden`) instead of retrying until
        // the connect timeout; the caller's queue decides about retries.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        if !configuration.allowPrivateSources {
            let check = Self.peerCheck(policy: configuration.addressPolicy)
            clientConfiguration.http1_1ConnectionDebugInitializer = check
            clientConfiguration.http2ConnectionDebugInitializer = check
        }
        self.client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: clientConfiguration,
            backgroundActivityLogger: logger
        )
    }

    /// Shuts the HTTP client down. Call once, after the last ``fetch(_:)`` has returned.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Downloads `urlString` to a new temporary file.
    ///
    /// - Returns: the file and facts about it; the caller owns the file (``FetchedSource/removeFile()``).
    /// - Throws: ``SourceFetchError`` (`download_failed`, `source_forbidden`, `input_too_large`);
    ///   `CancellationError` if the calling task is cancelled. No temporary file is left behind on failure.
    public func fetch(_ urlString: String) async throws -> FetchedSource {
        try await fetch(try SourceURL(urlString))
    }

    /// Downloads `url` to a new temporary file. See ``fetch(_:)``.
    public func fetch(_ url: URL) async throws -> FetchedSource {
        try await fetch(try SourceURL(url: url))
    }

    /// Downloads a validated URL to a new temporary file. See ``fetch(_:)``.
    public func fetch(_ source: SourceURL) async throws -> FetchedSource {
        let total = configuration.totalTimeout
        let deadline = NIODeadline.now() + TimeAmount(total)
        return try await withThrowingTaskGroup(of: FetchedSource?.self) { group in
            group.addTask { try await self.download(source, deadline: deadline) }
            group.addTask {
                try await Task.sleep(for: total)
                return nil
            }
            let first: FetchedSource??
            do {
                first = try await group.next()
            } catch {
                group.cancelAll()
                await Self.drain(&group)
                throw error
            }
            group.cancelAll()
            await Self.drain(&group)
            guard let outcome = first, let result = outcome else {
                try Task.checkCancellation()
                throw SourceFetchError.downloadFailed(
                    "\(source): timed out after \(Self.seconds(total)) (overall deadline)",
                    permanent: false
                )
            }
            return result
        }
    }

    // MARK: - Download

    private func download(_ source: SourceURL, deadline: NIODeadline) async throws -> FetchedSource {
        var tracker = RedirectTracker(initial: source, maxRedirects: configuration.maxRedirects)
        do {
            return try await follow(&tracker, deadline: deadline)
        } catch let error as SourceFetchError where tracker.redirectCount > 0 {
            // Name where the chain started, not only the hop that failed.
            let plural = tracker.redirectCount == 1 ? "" : "s"
            throw SourceFetchError(
                kind: error.kind,
                message: "\(error.message) (after \(tracker.redirectCount) redirect\(plural) from \(source))",
                isPermanent: error.isPermanent
            )
        }
    }

    private func follow(_ tracker: inout RedirectTracker, deadline: NIODeadline) async throws -> FetchedSource {
        while true {
            let hop = tracker.current
            try await checkHost(of: hop)
            logger.debug("fetching source", metadata: ["url": "\(hop)", "redirects": "\(tracker.redirectCount)"])

            var request = HTTPClientRequest(url: hop.url.absoluteString)
            request.method = .GET
            request.headers.add(name: "User-Agent", value: configuration.userAgent)
            request.headers.add(name: "Accept", value: "*/*")

            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline, logger: logger)
            } catch {
                throw try mapError(error, hop: hop)
            }
            let status = Int(response.status.code)
            switch try tracker.handle(status: status, location: response.headers.first(name: "location")) {
            case .follow(let next):
                logger.debug("following redirect", metadata: ["from": "\(hop)", "to": "\(next)", "status": "\(status)"])
                _ = try? await response.body.collect(upTo: 64 * 1024)
                continue
            case .done:
                break
            }
            guard (200..<300).contains(status) else {
                throw SourceFetchError.downloadFailed(
                    "\(hop): HTTP \(status)\(response.status.reasonPhrase.isEmpty ? "" : " \(response.status.reasonPhrase)")",
                    permanent: Self.isPermanent(status: status)
                )
            }
            return try await save(response, from: hop, redirectCount: tracker.redirectCount)
        }
    }

    /// Resolves the hop's host and refuses it if any address is refused (unless private sources are allowed).
    private func checkHost(of hop: SourceURL) async throws {
        let addresses: [IPAddress]
        do {
            addresses = try await resolver.resolve(host: hop.host, port: hop.port)
        } catch let error as SystemHostResolver.ResolutionError {
            throw SourceFetchError.downloadFailed(
                "\(hop): could not resolve host \(hop.host) (\(error))",
                permanent: error.isNameNotFound
            )
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SourceFetchError.downloadFailed("\(hop): could not resolve host \(hop.host) (\(error))", permanent: false)
        }
        guard !addresses.isEmpty else {
            throw SourceFetchError.downloadFailed("\(hop): host \(hop.host) has no addresses", permanent: false)
        }
        guard !configuration.allowPrivateSources else { return }
        for address in addresses {
            if case .forbidden(let reason) = configuration.addressPolicy.verdict(for: address, port: hop.port) {
                throw SourceFetchError.forbidden("\(hop): host \(hop.host) resolves to \(address), which is refused: \(reason)")
            }
        }
    }

    /// Streams a 2xx body to a temporary file, enforcing the size limit.
    private func save(_ response: HTTPClientResponse, from hop: SourceURL, redirectCount: Int) async throws -> FetchedSource {
        let limit = configuration.maxBytes
        if let length = response.headers.first(name: "content-length").flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }),
            length > limit
        {
            throw SourceFetchError.tooLarge("\(hop): Content-Length \(length) bytes exceeds the limit of \(limit) bytes")
        }
        let contentType = response.headers.first(name: "content-type")
        let name = SuggestedFileName.make(for: hop.url, contentType: contentType)
        let ext = name.contains(".") ? name.split(separator: ".").last.map(String.init) : nil
        let safeExt = ext.flatMap { $0.count <= 10 && $0.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? $0 : nil }

        let writer: TemporaryFileWriter
        do {
            writer = try TemporaryFileWriter(directory: configuration.temporaryDirectory, fileExtension: safeExt)
        } catch {
            throw SourceFetchError.downloadFailed("\(hop): could not create a temporary file (\(error))", permanent: false)
        }
        do {
            for try await chunk in response.body {
                if writer.bytesWritten + Int64(chunk.readableBytes) > limit {
                    throw SourceFetchError.tooLarge("\(hop): body exceeds the limit of \(limit) bytes")
                }
                do {
                    try writer.write(chunk)
                } catch {
                    throw SourceFetchError.downloadFailed("\(hop): could not write the temporary file (\(error))", permanent: false)
                }
            }
            try writer.close()
        } catch {
            writer.discard()
            throw try mapError(error, hop: hop)
        }
        logger.debug("fetched source", metadata: ["url": "\(hop)", "bytes": "\(writer.bytesWritten)"])
        return FetchedSource(
            fileURL: writer.url,
            finalURL: hop.url,
            byteCount: writer.bytesWritten,
            contentType: contentType,
            suggestedFileName: name,
            redirectCount: redirectCount
        )
    }

    // MARK: - Errors

    /// Maps any error to a ``SourceFetchError`` naming the (redacted) URL; rethrows cancellation.
    private func mapError(_ error: any Error, hop: SourceURL) throws -> SourceFetchError {
        if let error = error as? SourceFetchError { return error }
        if let error = error as? ForbiddenConnectionError {
            return .forbidden("\(hop): connected to \(error.address) port \(error.port), which is refused: \(error.reason)")
        }
        if error is CancellationError { throw error }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout:
                return .downloadFailed("\(hop): connect timed out after \(Self.seconds(configuration.connectTimeout))", permanent: false)
            case .readTimeout:
                return .downloadFailed("\(hop): read timed out after \(Self.seconds(configuration.readTimeout))", permanent: false)
            case .deadlineExceeded:
                return .downloadFailed("\(hop): timed out after \(Self.seconds(configuration.totalTimeout)) (overall deadline)", permanent: false)
            case .remoteConnectionClosed:
                return .downloadFailed("\(hop): connection closed by the server", permanent: false)
            case .cancelled:
                if Task.isCancelled { throw CancellationError() }
                return .downloadFailed("\(hop): request cancelled", permanent: false)
            default:
                return .downloadFailed("\(hop): \(error)", permanent: false)
            }
        }
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOSSL") || typeName.contains("BoringSSL") {
            return .downloadFailed("\(hop): TLS error (\(error))", permanent: true)
        }
        let text = String(describing: error)
        if text.localizedCaseInsensitiveContains("connection refused") {
            return .downloadFailed("\(hop): connection refused", permanent: false)
        }
        return .downloadFailed("\(hop): connection failed (\(text))", permanent: false)
    }

    /// 4xx are permanent except 408, 425 and 429; 5xx are transient.
    static func isPermanent(status: Int) -> Bool {
        switch status {
        case 408, 425, 429: return false
        case 500...599: return false
        default: return true
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }

    private static func drain(_ group: inout ThrowingTaskGroup<FetchedSource?, any Error>) async {
        while true {
            do {
                guard let next = try await group.next() else { return }
                // A download that finished after the deadline fired: its file is not returned, delete it.
                if let late = next { try? late.removeFile() }
            } catch {
                continue
            }
        }
    }

    /// The post-connect SSRF check installed as the client's connection initializer.
    private static func peerCheck(policy: AddressPolicy) -> @Sendable (Channel) -> EventLoopFuture<Void> {
        { channel in
            guard let remote = channel.remoteAddress, let address = IPAddress(socketAddress: remote) else {
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            let port = remote.port ?? 0
            guard case .forbidden(let reason) = policy.verdict(for: address, port: port) else {
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            // Close after the client has recorded the failed connection, so it never sends on it.
            channel.eventLoop.execute { channel.close(promise: nil) }
            return channel.eventLoop.makeFailedFuture(
                ForbiddenConnectionError(address: address.description, port: port, reason: reason)
            )
        }
    }
}
