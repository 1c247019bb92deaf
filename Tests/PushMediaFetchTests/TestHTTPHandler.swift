import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The routes of ``TestHTTPServer``; one handler per connection.
final class TestHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let requests: NIOLockedValueBox<[String]>
    private var uri = "/"

    init(requests: NIOLockedValueBox<[String]>) {
        self.requests = requests
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            uri = head.uri
            requests.withLockedValue { $0.append(head.uri) }
        case .body:
            break
        case .end:
            respond(context: context)
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let components = URLComponents(string: uri)
        let path = components?.path ?? uri
        let query = Dictionary(
            (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { first, _ in first }
        )
        let parts = path.split(separator: "/").map(String.init)
        let channel = context.channel

        switch parts.first {
        case "file":
            let count = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            send(
                context, .ok, headers: ["Content-Type": query["type"] ?? "application/octet-stream"],
                body: TestHTTPServer.pattern(count))
        case "chunked":
            let count = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Transfer-Encoding", value: "chunked")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let pattern = TestHTTPServer.pattern(count)
            var offset = 0
            while offset < count {
                let end = min(count, offset + 16 * 1024)
                let buffer = context.channel.allocator.buffer(bytes: pattern[offset..<end])
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
                offset = end
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case "huge-length":
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Length", value: "10000000000")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: TestHTTPServer.pattern(1000))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(3)) { channel.close(promise: nil) }
        case "redirect":
            let remaining = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            if remaining <= 0 {
                send(context, .ok, headers: [:], body: TestHTTPServer.pattern(1234))
            } else {
                send(context, .found, headers: ["Location": "/redirect/\(remaining - 1)"], body: Array("moved".utf8))
            }
        case "redirect-to":
            send(context, .found, headers: ["Location": query["url"] ?? "/"], body: [])
        case "status":
            let code = parts.count > 1 ? Int(parts[1]) ?? 500 : 500
            send(context, HTTPResponseStatus(statusCode: code), headers: [:], body: Array("status \(code)".utf8))
        case "slow-body":
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Length", value: "10")
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) {
                let buffer = channel.allocator.buffer(bytes: TestHTTPServer.pattern(10))
                channel.write(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
                channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil)
            }
        case "drip":
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Transfer-Encoding", value: "chunked")
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            // 60 s of it: a fetch that ends before that ended on its own deadline, however
            // slowly a busy machine runs the test.
            for step in 1...600 {
                channel.eventLoop.scheduleTask(in: .milliseconds(Int64(step) * 100)) {
                    guard channel.isActive else { return }
                    let buffer = channel.allocator.buffer(repeating: 0x41, count: 1024)
                    channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
                    if step == 600 { channel.writeAndFlush(HTTPServerResponsePart.end(nil), promise: nil) }
                }
            }
        default:
            send(context, .notFound, headers: [:], body: Array("not found".utf8))
        }
    }

    private func send(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, headers: [String: String], body: [UInt8]) {
        var head = HTTPResponseHead(version: .http1_1, status: status)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: String(body.count))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
