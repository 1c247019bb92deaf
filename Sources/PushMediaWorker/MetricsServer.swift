import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import PushMediaQueue
import ServiceLifecycle

/// Serves the worker's Prometheus metrics on `GET /metrics` and its health on `GET /healthz`
/// (200 `ok`, or 503 with the reason while its claims or storage fail), as a service-lifecycle
/// `Service` that closes its socket on graceful shutdown.
public final class MetricsServer: Service, @unchecked Sendable {
    public let host: String
    public let port: Int
    let registry: PrometheusCollectorRegistry
    let health: @Sendable () -> QueueWorker.Health
    let logger: Logger

    public init(
        host: String = "0.0.0.0", port: Int, registry: PrometheusCollectorRegistry,
        health: @escaping @Sendable () -> QueueWorker.Health = { .ok }, logger: Logger
    ) {
        self.host = host
        self.port = port
        self.registry = registry
        self.health = health
        self.logger = logger
    }

    public func run() async throws {
        let registry = self.registry
        let health = self.health
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(MetricsHTTPHandler(registry: registry, health: health))
                }
            }
            .bind(host: host, port: port).get()
        logger.info("metrics served", metadata: ["address": "http://\(host):\(port)/metrics"])
        await withGracefulShutdownHandler {
            try? await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}

/// Answers `/metrics` with the registry's text exposition and `/healthz` with `ok`, or 503 and
/// the reason while the worker is failing.
final class MetricsHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry
    let health: @Sendable () -> QueueWorker.Health
    private var path = ""

    init(registry: PrometheusCollectorRegistry, health: @escaping @Sendable () -> QueueWorker.Health) {
        self.registry = registry
        self.health = health
    }

    /// `/healthz`'s answer.
    static func healthAnswer(_ health: QueueWorker.Health) -> (HTTPResponseStatus, [UInt8]) {
        switch health {
        case .ok:
            return (.ok, Array("ok\n".utf8))
        case .failing(let reason, let failures, let since):
            let seconds = Int(Date().timeIntervalSince(since).rounded())
            return (.serviceUnavailable, Array("unhealthy: \(failures) failures in a row for \(seconds) s, backing off; last: \(reason)\n".utf8))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.method == .GET ? head.uri.split(separator: "?").first.map(String.init) ?? "" : ""
        case .body:
            break
        case .end:
            let (status, body, type): (HTTPResponseStatus, [UInt8], String) =
                switch path {
                case "/metrics": (.ok, registry.emitToBuffer(), "text/plain; version=0.0.4; charset=utf-8")
                case "/healthz":
                    {
                        let (status, body) = Self.healthAnswer(health())
                        return (status, body, "text/plain")
                    }()
                default: (.notFound, Array("not found\n".utf8), "text/plain")
                }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: type)
            headers.add(name: "Content-Length", value: String(body.count))
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
