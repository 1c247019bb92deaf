#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as raw network-order bytes.
///
/// A pure value: parsing uses `inet_pton`, which accepts only the canonical
/// textual forms (dotted-quad IPv4, RFC 4291 IPv6). Odd IPv4 spellings such as
/// `2130706433` or `0x7f.1` are *not* parsed here on purpose; they reach the
/// policy as the addresses `getaddrinfo` resolves them to.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4, 4 bytes.
        case v4
        /// IPv6, 16 bytes.
        case v6
    }

    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The address family, from the byte count.
    public var family: Family { bytes.count == 4 ? .v4 : .v6 }

    /// Creates an IPv4 address from its four octets.
    public init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.bytes = [a, b, c, d]
    }

    /// Creates an address from 4 (IPv4) or 16 (IPv6) network-order bytes; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a textual IPv4 (`192.0.2.1`) or IPv6 (`2001:db8::1`, `[::1]`, `fe80::1%eth0`) address.
    ///
    /// Brackets around IPv6 and a zone suffix (`%…`) are accepted and dropped.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") {
            text = text.dropFirst().dropLast()
        }
        if let percent = text.firstIndex(of: "%") {
            text = text[..<percent]
        }
        let string = String(text)
        if !string.contains(":") {
            var addr = in_addr()
            guard inet_pton(AF_INET, string, &addr) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &addr) { Array($0) }
        } else {
            var addr = in6_addr()
            guard inet_pton(AF_INET6, string, &addr) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &addr) { Array($0) }
        }
    }

    /// For an IPv6 address whose first 12 bytes equal `prefix`, the IPv4 address in its last 4 bytes.
    func embeddedIPv4(afterPrefix prefix: [UInt8]) -> IPAddress? {
        guard family == .v6, Array(bytes[0..<12]) == prefix else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// The canonical text form (`inet_ntop`), e.g. `127.0.0.1` or `::ffff:127.0.0.1`.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = self.family == .v4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
