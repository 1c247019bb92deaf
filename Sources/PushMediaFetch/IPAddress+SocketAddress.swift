import NIOCore

extension IPAddress {
    /// The IP address of a NIO socket address; `nil` for Unix domain sockets.
    init?(socketAddress: SocketAddress) {
        switch socketAddress {
        case .v4(let address):
            var raw = address.address.sin_addr
            self.init(bytes: withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let address):
            var raw = address.address.sin6_addr
            self.init(bytes: withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }
}
