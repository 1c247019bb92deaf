/// Decides whether the fetcher may connect to an IP address (SSRF protection).
///
/// A pure value type. The standard policy refuses every address that is not globally
/// routable unicast: loopback, RFC 1918 private, CGNAT (100.64.0.0/10), link-local
/// (169.254.0.0/16, fe80::/10), unique-local (fc00::/7), unspecified, multicast,
/// broadcast, reserved and documentation ranges, benchmarking ranges, the cloud
/// metadata addresses (169.254.169.254, 169.254.170.2, 100.100.100.200, 192.0.0.192,
/// fd00:ec2::254), and IPv6 forms that embed a refused IPv4 address (IPv4-mapped
/// `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
/// For IPv6 anything outside global unicast `2000::/3` is refused.
///
/// `allowedEndpoints` punches exact address-and-port holes into the policy; it exists for
/// tests and for a single known internal service. Production code should leave it empty
/// (or use ``SourceFetcherConfiguration/allowPrivateSources`` for internal CDNs).
public struct AddressPolicy: Hashable, Sendable {
    /// The outcome of checking one address.
    public enum Verdict: Hashable, Sendable {
        /// The address may be contacted.
        case allowed
        /// The address must not be contacted; `reason` names the range, e.g. `loopback`.
        case forbidden(reason: String)

        /// Whether this is ``allowed``.
        public var isAllowed: Bool { self == .allowed }
    }

    /// One address and TCP port.
    public struct Endpoint: Hashable, Sendable {
        /// The address.
        public var address: IPAddress
        /// The TCP port.
        public var port: Int

        /// Creates an endpoint.
        public init(address: IPAddress, port: Int) {
            self.address = address
            self.port = port
        }
    }

    /// Exact endpoints that are allowed even though their address is refused. Empty by default.
    public var allowedEndpoints: Set<Endpoint>

    /// Creates a policy. With no arguments it is ``standard``.
    public init(allowedEndpoints: Set<Endpoint> = []) {
        self.allowedEndpoints = allowedEndpoints
    }

    /// The strict default: only globally routable unicast addresses, no exceptions.
    public static let standard = AddressPolicy()

    /// Checks an address on a port: an ``allowedEndpoints`` match wins, otherwise ``verdict(for:)``.
    public func verdict(for address: IPAddress, port: Int) -> Verdict {
        if !allowedEndpoints.isEmpty {
            let plain = Self.unmapped(address)
            if allowedEndpoints.contains(where: { Self.unmapped($0.address) == plain && $0.port == port }) {
                return .allowed
            }
        }
        return verdict(for: address)
    }

    /// Classifies an address by range alone (ignores ``allowedEndpoints``).
    public func verdict(for address: IPAddress) -> Verdict {
        switch address.family {
        case .v4: return Self.classifyV4(address)
        case .v6: return Self.classifyV6(address)
        }
    }

    // MARK: - Tables

    private static func range(_ text: String) -> IPAddressRange {
        guard let range = IPAddressRange(text) else { preconditionFailure("bad built-in range \(text)") }
        return range
    }

    /// Refused IPv4 ranges, most specific first so the reason is the most useful one.
    static let forbiddenV4: [(IPAddressRange, String)] = [
        (range("169.254.169.254/32"), "cloud metadata address"),
        (range("169.254.170.2/32"), "cloud metadata address (ECS)"),
        (range("100.100.100.200/32"), "cloud metadata address (Alibaba)"),
        (range("192.0.0.192/32"), "cloud metadata address (Oracle)"),
        (range("255.255.255.255/32"), "broadcast"),
        (range("0.0.0.0/32"), "unspecified"),
        (range("0.0.0.0/8"), "\"this network\" (0.0.0.0/8)"),
        (range("10.0.0.0/8"), "private (RFC 1918)"),
        (range("100.64.0.0/10"), "carrier-grade NAT (100.64.0.0/10)"),
        (range("127.0.0.0/8"), "loopback"),
        (range("169.254.0.0/16"), "link-local"),
        (range("172.16.0.0/12"), "private (RFC 1918)"),
        (range("192.0.0.0/24"), "IETF protocol assignments (192.0.0.0/24)"),
        (range("192.0.2.0/24"), "documentation (TEST-NET-1)"),
        (range("192.88.99.0/24"), "6to4 relay anycast (deprecated)"),
        (range("192.168.0.0/16"), "private (RFC 1918)"),
        (range("198.18.0.0/15"), "benchmarking (198.18.0.0/15)"),
        (range("198.51.100.0/24"), "documentation (TEST-NET-2)"),
        (range("203.0.113.0/24"), "documentation (TEST-NET-3)"),
        (range("224.0.0.0/4"), "multicast"),
        (range("240.0.0.0/4"), "reserved (240.0.0.0/4)"),
    ]

    /// Refused IPv6 ranges, checked after the IPv4-embedding forms.
    static let forbiddenV6: [(IPAddressRange, String)] = [
        (range("fd00:ec2::254/128"), "cloud metadata address"),
        (range("::/128"), "unspecified"),
        (range("::1/128"), "loopback"),
        (range("64:ff9b:1::/48"), "local-use NAT64 (64:ff9b:1::/48)"),
        (range("100::/64"), "discard-only (100::/64)"),
        (range("2001::/23"), "IETF protocol assignments (2001::/23)"),
        (range("2001:db8::/32"), "documentation (2001:db8::/32)"),
        (range("3fff::/20"), "documentation (3fff::/20)"),
        (range("5f00::/16"), "segment routing (5f00::/16)"),
        (range("fc00::/7"), "unique-local (fc00::/7)"),
        (range("fe80::/10"), "link-local"),
        (range("fec0::/10"), "site-local (deprecated)"),
        (range("ff00::/8"), "multicast"),
    ]

    private static let globalUnicastV6 = range("2000::/3")
    private static let nat64 = range("64:ff9b::/96")
    private static let sixToFour = range("2002::/16")
    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
    private static let compatiblePrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    private static let translatedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]

    // MARK: - Classification

    private static func classifyV4(_ address: IPAddress) -> Verdict {
        for (range, reason) in forbiddenV4 where range.contains(address) {
            return .forbidden(reason: reason)
        }
        return .allowed
    }

    private static func classifyV6(_ address: IPAddress) -> Verdict {
        // ::ffff:a.b.c.d — the kernel connects to a.b.c.d itself.
        if let v4 = address.embeddedIPv4(afterPrefix: mappedPrefix) {
            return prefixed(classifyV4(v4), "IPv4-mapped")
        }
        // ::a.b.c.d — deprecated IPv4-compatible form; :: and ::1 live here too.
        if let v4 = address.embeddedIPv4(afterPrefix: compatiblePrefix) {
            if v4.bytes == [0, 0, 0, 0] { return .forbidden(reason: "unspecified") }
            if v4.bytes == [0, 0, 0, 1] { return .forbidden(reason: "loopback") }
            if case .forbidden = classifyV4(v4) { return prefixed(classifyV4(v4), "IPv4-compatible") }
            return .forbidden(reason: "IPv4-compatible IPv6 (deprecated)")
        }
        // ::ffff:0:a.b.c.d — IPv4-translated (RFC 2765), not routable.
        if let v4 = address.embeddedIPv4(afterPrefix: translatedPrefix) {
            if case .forbidden = classifyV4(v4) { return prefixed(classifyV4(v4), "IPv4-translated") }
            return .forbidden(reason: "IPv4-translated IPv6 (::ffff:0:0/96)")
        }
        // 64:ff9b::a.b.c.d — a NAT64 gateway would connect to a.b.c.d.
        if nat64.contains(address) {
            return prefixed(classifyV4(IPAddress(bytes: Array(address.bytes[12..<16]))!), "NAT64")
        }
        // 2002:aabb:ccdd::/48 — 6to4 of a.b.c.d.
        if sixToFour.contains(address) {
            return prefixed(classifyV4(IPAddress(bytes: Array(address.bytes[2..<6]))!), "6to4")
        }
        for (range, reason) in forbiddenV6 where range.contains(address) {
            return .forbidden(reason: reason)
        }
        if !globalUnicastV6.contains(address) {
            return .forbidden(reason: "not global unicast (outside 2000::/3)")
        }
        return .allowed
    }

    private static func prefixed(_ verdict: Verdict, _ form: String) -> Verdict {
        switch verdict {
        case .allowed: return .allowed
        case .forbidden(let reason): return .forbidden(reason: "\(form) \(reason)")
        }
    }

    /// `::ffff:a.b.c.d` → `a.b.c.d`; other addresses unchanged.
    static func unmapped(_ address: IPAddress) -> IPAddress {
        address.embeddedIPv4(afterPrefix: mappedPrefix) ?? address
    }
}
