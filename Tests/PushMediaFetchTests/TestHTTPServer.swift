import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on 127.0.0.1 (random port) for the fetcher tests.
///
/// Routes:
/// - `/file/N[/name]` — N pattern bytes with Content-Length (`?type=` sets Content-Type)
/// - `/chunked/N` — N pattern bytes, chunked, no Content-Length
/// - `/huge-length` — claims a 10 GB Content-Length, sends a few bytes
/// - `/redirect/K` — 302 to `/redirect/K-1`; `/redirect/0` serves 1234 bytes
/// - `/redirect-to?url=ENC` — 302 to the decoded URL
/// - `/status/N` — status N
/// - `/slow-body` — head at once, body after 2 s
/// - `/drip` — chunked, 1 KiB every 100 ms for 60 s
final class TestHTTPServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let requests: NIOLockedValueBox<[String]>

    private init(channel: any Channel, requests: NIOLockedValueBox<[String]>) {
        self.channel = channel
        self.port = channel.localAddress!.port!
        self.requests = requests
    }

    /// The request URIs received so far.
    var receivedRequests: [String] { requests.withLockedValue { $0 } }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The byte at `index` of every pattern body.
    static func patternByte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: (index &* 31 &+ 7) % 251) }

    /// The pattern body of `count` bytes.
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map(patternByte) }

    static func start() async throws -> TestHTTPServer {
        let requests = NIOLockedValueBox<[String]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TestHTTPHandler(requests: requests))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TestHTTPServer(channel: channel, requests: requests)
    }

    func stop() async throws {
        try await channel.close()
    }
}

/// Runs `body` with a started server and always stops it.
func withTestServer<T>(_ body: (TestHTTPServer) async throws -> T) async throws -> T {
    let server = try await TestHTTPServer.start()
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}
