import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 (a random port) standing in for a CDN: `/cdn/KEY` serves the
/// object its origin gives for KEY (files of a folder, or a bucket's objects), each as the
/// `behaviours` table says, by the file's name: correctly, or with one misbehaviour.
final class TestCDN: Sendable {
    /// What the CDN does with one file.
    enum Behaviour: Sendable {
        case serve
        case contentType(String)
        case status(Int)
        /// Content-Length of the whole file, half the body, then the connection closes.
        case cutOff
        case extraBytes(Int)
        /// The file's length, one byte changed.
        case otherBytes
        case redirectToHTTP
        /// `/cdn/F` → `/loop/a/F` → `/loop/b/F` → `/loop/a/F` …
        case redirectLoop
        /// `/cdn/F` → `/moved/F`, which serves it.
        case redirect
        /// The file again and again, chunked, without Content-Length, until the client goes.
        case endless
        /// Head and half the body at once; the rest never (the client gives up first).
        case dripNeverEnding
        /// Reads the request and never answers.
        case silent
        /// The file chunked, without Content-Length.
        case noContentLength
        /// The file as it is, labelled `Content-Encoding: br` (which verify never offers).
        case unofferedEncoding
        /// A `Content-Length` that is not a number, then the connection closes.
        case garbledLength
    }

    /// An object of the origin.
    struct Object: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var cacheControl: String?
    }

    typealias Origin = @Sendable (String) async throws -> Object?

    let port: Int
    private let server: Task<Void, Never>
    private let requests: NIOLockedValueBox<[HTTPRequestHead]>

    private init(port: Int, server: Task<Void, Never>, requests: NIOLockedValueBox<[HTTPRequestHead]>) {
        self.port = port
        self.server = server
        self.requests = requests
    }

    /// `https://localhost:PORT/cdn/`.
    var base: String { "https://localhost:\(port)/cdn/" }

    /// Every request head received so far.
    var received: [HTTPRequestHead] { requests.withLockedValue { $0 } }

    func stop() { server.cancel() }

    /// With `oneRequestPerConnection`, each connection answers its first request and closes
    /// when the next one arrives, without an answer and without having said `Connection: close`:
    /// a server that closes idle keep-alive connections, met by a client that reuses one just
    /// as it closes.
    static func start(
        ca: TestCA, origin: @escaping Origin, behaviours: [String: Behaviour] = [:], oneRequestPerConnection: Bool = false
    ) async throws -> TestCDN {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(ca.certificateFile.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: ca.keyFile.path, format: .pem)))
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        let port = listener.channel.localAddress!.port!
        let requests = NIOLockedValueBox<[HTTPRequestHead]>([])
        let handler = Handler(origin: origin, behaviours: behaviours, requests: requests, oneRequestPerConnection: oneRequestPerConnection)
        let server = Task<Void, Never> {
            await withDiscardingTaskGroup { group in
                do {
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await handler.serve(connection) }
                        }
                    }
                } catch {
                    // Stopped.
                }
            }
        }
        return TestCDN(port: port, server: server, requests: requests)
    }

    /// The files of `folder` by relative path, typed by their extension, cached for a year.
    static func folderOrigin(_ folder: URL) -> Origin {
        { key in
            guard !key.contains(".."), let data = FileManager.default.contents(atPath: folder.appendingPathComponent(key).path) else { return nil }
            return Object(bytes: Array(data), contentType: mimeType(key), cacheControl: "public, max-age=31536000, immutable")
        }
    }

    static func mimeType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "mp4": "video/mp4"
        case "m4a": "audio/mp4"
        default: "application/octet-stream"
        }
    }

    private struct Handler: Sendable {
        let origin: Origin
        let behaviours: [String: Behaviour]
        let requests: NIOLockedValueBox<[HTTPRequestHead]>
        let oneRequestPerConnection: Bool

        func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
            // A client that refuses the certificate ends the handshake: that is an error here.
            try? await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                // Holding: nothing more is sent, but the connection is read as a TLS server reads
                // it, until the client goes (its close_notify answered at once, as a real
                // server's is).
                var holding = false
                var answered = 0
                for try await part in inbound where !holding {
                    switch part {
                    case .head(let received):
                        if oneRequestPerConnection && answered > 0 { return }
                        head = received
                    case .body:
                        break
                    case .end:
                        guard let request = head else { continue }
                        requests.withLockedValue { $0.append(request) }
                        answered += 1
                        switch try await respond(request, outbound) {
                        case .next: continue
                        case .close: return
                        case .hold: holding = true
                        }
                    }
                }
            }
        }

        /// What the connection does after a response.
        enum After {
            /// Reads the next request.
            case next
            /// Closes.
            case close
            /// Sends nothing more until the client goes.
            case hold
        }

        /// Answers one request.
        private func respond(_ request: HTTPRequestHead, _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> After {
            let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
            let host = request.headers.first(name: "host") ?? "localhost"
            for (prefix, next) in [("/loop/a/", "/loop/b/"), ("/loop/b/", "/loop/a/")] where path.hasPrefix(prefix) {
                try await send(out, .found, ["Location": next + path.dropFirst(prefix.count)], [])
                return .next
            }
            let key: String
            if path.hasPrefix("/cdn/") {
                key = String(path.dropFirst(5))
            } else if path.hasPrefix("/moved/") {
                key = String(path.dropFirst(7))
            } else {
                try await send(out, .notFound, [:], Array("no such route".utf8))
                return .next
            }
            guard let object = try await origin(key) else {
                try await send(out, .notFound, [:], Array("<Error><Code>NoSuchKey</Code></Error>".utf8))
                return .next
            }
            var headers = ["Content-Type": object.contentType]
            if let cache = object.cacheControl { headers["Cache-Control"] = cache }
            let behaviour: Behaviour = path.hasPrefix("/moved/") ? .serve : behaviours[(key as NSString).lastPathComponent] ?? .serve
            let body = object.bytes
            switch behaviour {
            case .serve:
                try await send(out, .ok, headers, body)
            case .contentType(let type):
                headers["Content-Type"] = type
                try await send(out, .ok, headers, body)
            case .status(let code):
                try await send(out, HTTPResponseStatus(statusCode: code), [:], Array("<Error><Code>\(code)</Code></Error>".utf8))
            case .cutOff:
                try await head(out, .ok, headers, length: body.count)
                try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(body.count / 2)))))
                return .close
            case .extraBytes(let count):
                try await send(out, .ok, headers, body + Array(repeating: 0, count: count))
            case .otherBytes:
                var changed = body
                changed[changed.count / 2] ^= 0xFF
                try await send(out, .ok, headers, changed)
            case .redirectToHTTP:
                try await send(out, .movedPermanently, ["Location": "http://\(host)/moved/\(key)"], [])
            case .redirectLoop:
                try await send(out, .found, ["Location": "/loop/a/\(key)"], [])
            case .redirect:
                try await send(out, .found, ["Location": "/moved/\(key)"], [])
            case .endless:
                try await head(out, .ok, headers, length: nil)
                // Until the client goes (a write fails), bounded in case it never does.
                for _ in 0..<(1 << 14) { try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                return .close
            case .dripNeverEnding:
                try await head(out, .ok, headers, length: body.count)
                try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(body.count / 2)))))
                return .hold
            case .silent:
                return .hold
            case .noContentLength:
                try await head(out, .ok, headers, length: nil)
                try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                try await out.write(.end(nil))
            case .unofferedEncoding:
                headers["Content-Encoding"] = "br"
                try await send(out, .ok, headers, body)
            case .garbledLength:
                var head = HTTPResponseHead(version: .http1_1, status: .ok)
                head.headers.add(name: "Content-Type", value: object.contentType)
                head.headers.add(name: "Content-Length", value: "12abc")
                try await out.write(.head(head))
                try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(12)))))
                return .close
            }
            return .next
        }

        private func head(
            _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, _ status: HTTPResponseStatus, _ headers: [String: String], length: Int?
        )
            async throws
        {
            var head = HTTPResponseHead(version: .http1_1, status: status)
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            if let length {
                head.headers.add(name: "Content-Length", value: String(length))
            } else {
                head.headers.add(name: "Transfer-Encoding", value: "chunked")
            }
            try await out.write(.head(head))
        }

        private func send(
            _ out: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, _ status: HTTPResponseStatus, _ headers: [String: String], _ body: [UInt8]
        )
            async throws
        {
            try await head(out, status, headers, length: body.count)
            if !body.isEmpty { try await out.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await out.write(.end(nil))
        }
    }
}

/// A server that accepts connections and never sends a byte (not even the TLS handshake).
final class SilentListener: Sendable {
    let port: Int
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
        port = channel.localAddress!.port!
    }

    static func start() async throws -> SilentListener {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        return SilentListener(channel: channel)
    }

    func stop() { channel.close(promise: nil) }
}
