import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system resolver: `getaddrinfo` (TCP, IPv4 and IPv6), run on NIO's blocking-I/O thread pool.
///
/// Because it is `getaddrinfo`, literal hosts in odd spellings (`2130706433`, `0x7f.1`,
/// `017700000001`) resolve to the address the kernel would actually connect to, so the
/// policy sees `127.0.0.1` for all of them.
public struct SystemHostResolver: HostResolver {
    /// Failure to resolve, with `gai_strerror`'s text.
    public struct ResolutionError: Error, CustomStringConvertible {
        /// The `getaddrinfo` return code.
        public let code: Int32
        /// A readable explanation.
        public var description: String { String(cString: gai_strerror(code)) }
        /// Whether the name definitely does not exist (`EAI_NONAME`), as opposed to a temporary failure.
        public var isNameNotFound: Bool { code == EAI_NONAME }
    }

    /// Creates the resolver.
    public init() {}

    /// Resolves `host` with `getaddrinfo` off the cooperative thread pool.
    public func resolve(host: String, port: Int) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            try Self.getaddrinfoBlocking(host: host, port: port)
        }
    }

    /// The blocking lookup.
    static func getaddrinfoBlocking(host: String, port: Int) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0 else { throw ResolutionError(code: status) }
        defer { freeaddrinfo(result) }
        var addresses: [IPAddress] = []
        var cursor = result
        while let info = cursor {
            if let sockaddr = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(withUnsafeBytes(of: address) { IPAddress(bytes: Array($0))! })
                case AF_INET6:
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(withUnsafeBytes(of: address) { IPAddress(bytes: Array($0))! })
                default:
                    break
                }
            }
            cursor = info.pointee.ai_next
        }
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
