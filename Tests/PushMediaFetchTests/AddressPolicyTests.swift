import PushMediaFetch
import Testing

@Suite("AddressPolicy")
struct AddressPolicyTests {
    let policy = AddressPolicy.standard

    private func verdict(_ text: String) -> AddressPolicy.Verdict {
        guard let address = IPAddress(text) else {
            Issue.record("bad test address \(text)")
            return .allowed
        }
        return policy.verdict(for: address)
    }

    private func reason(_ text: String) -> String? {
        if case .forbidden(let reason) = verdict(text) { return reason }
        return nil
    }

    @Test(arguments: [
        // unspecified / this network
        "0.0.0.0", "0.255.255.255",
        // RFC 1918 edges
        "10.0.0.0", "10.255.255.255", "172.16.0.0", "172.31.255.255", "192.168.0.0", "192.168.255.255",
        // CGNAT edges
        "100.64.0.0", "100.127.255.255",
        // loopback edges
        "127.0.0.0", "127.0.0.1", "127.255.255.255",
        // link-local edges and metadata
        "169.254.0.0", "169.254.255.255", "169.254.169.254", "169.254.170.2",
        // IETF, documentation, benchmarking, 6to4 relay
        "192.0.0.0", "192.0.0.255", "192.0.0.192", "192.0.2.0", "192.0.2.255", "198.51.100.7", "203.0.113.255",
        "198.18.0.0", "198.19.255.255", "192.88.99.1",
        // multicast, reserved, broadcast
        "224.0.0.0", "239.255.255.255", "240.0.0.0", "255.255.255.254", "255.255.255.255",
    ])
    func refusesNonGlobalIPv4(_ text: String) {
        #expect(!verdict(text).isAllowed, "\(text) must be refused")
    }

    @Test(arguments: [
        "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
        "126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0",
        "192.0.1.255", "192.0.3.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
        "223.255.255.255", "93.184.216.34",
    ])
    func allowsGlobalIPv4(_ text: String) {
        #expect(verdict(text) == .allowed, "\(text) must be allowed")
    }

    @Test(arguments: [
        "::", "::1", "fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::", "fd00::1",
        "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fd00:ec2::254", "ff02::1", "ff00::", "fec0::1",
        "2001:db8::1", "3fff::1", "100::1", "2001::1", "2001:2::1", "64:ff9b:1::1", "5f00::1",
        // outside 2000::/3
        "1000::1", "4000::1", "e000::1",
    ])
    func refusesNonGlobalIPv6(_ text: String) {
        #expect(!verdict(text).isAllowed, "\(text) must be refused")
    }

    @Test(arguments: ["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:80b::200e", "2000::1", "3ffe::1"])
    func allowsGlobalIPv6(_ text: String) {
        #expect(verdict(text) == .allowed, "\(text) must be allowed")
    }

    @Test(arguments: [
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:192.168.1.1", "::ffff:0.0.0.0",
        "::ffff:100.64.0.1", "::ffff:255.255.255.255",
        "::127.0.0.1", "::10.0.0.1", "::169.254.169.254", "::8.8.8.8",
        "::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8",
        "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1",
        "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:0101::",
    ])
    func refusesIPv6FormsEmbeddingRefusedIPv4(_ text: String) {
        #expect(!verdict(text).isAllowed, "\(text) must be refused")
    }

    @Test(arguments: ["::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1"])
    func allowsIPv6FormsEmbeddingGlobalIPv4(_ text: String) {
        #expect(verdict(text) == .allowed, "\(text) must be allowed")
    }

    @Test func reasonsNameTheRange() {
        #expect(reason("127.0.0.1") == "loopback")
        #expect(reason("10.1.2.3") == "private (RFC 1918)")
        #expect(reason("169.254.169.254") == "cloud metadata address")
        #expect(reason("fd00:ec2::254") == "cloud metadata address")
        #expect(reason("100.100.100.200") == "cloud metadata address (Alibaba)")
        #expect(reason("255.255.255.255") == "broadcast")
        #expect(reason("0.0.0.0") == "unspecified")
        #expect(reason("::") == "unspecified")
        #expect(reason("::1") == "loopback")
        #expect(reason("::ffff:127.0.0.1") == "IPv4-mapped loopback")
        #expect(reason("::ffff:169.254.169.254") == "IPv4-mapped cloud metadata address")
        #expect(reason("100.64.0.1")?.contains("carrier-grade NAT") == true)
        #expect(reason("fe80::1") == "link-local")
        #expect(reason("fc00::1")?.contains("unique-local") == true)
        #expect(reason("224.0.0.1") == "multicast")
        #expect(reason("ff02::1") == "multicast")
    }

    @Test func allowedEndpointIsExactAddressAndPort() throws {
        let loopback = try #require(IPAddress("127.0.0.1"))
        let policy = AddressPolicy(allowedEndpoints: [.init(address: loopback, port: 8080)])
        #expect(policy.verdict(for: loopback, port: 8080) == .allowed)
        #expect(policy.verdict(for: IPAddress("::ffff:127.0.0.1")!, port: 8080) == .allowed, "mapped form matches")
        #expect(!policy.verdict(for: loopback, port: 8081).isAllowed)
        #expect(!policy.verdict(for: IPAddress("127.0.0.2")!, port: 8080).isAllowed)
        #expect(!policy.verdict(for: IPAddress("::1")!, port: 8080).isAllowed)
        #expect(!policy.verdict(for: loopback).isAllowed, "port-less check ignores exceptions")
        #expect(AddressPolicy.standard.allowedEndpoints.isEmpty)
    }

    @Test func oddIPv4SpellingsResolveToLoopbackAndAreRefused() async throws {
        for host in ["2130706433", "0x7f.1", "0x7f000001", "127.1", "017700000001", "localhost"] {
            let addresses = try await SystemHostResolver().resolve(host: host, port: 80)
            #expect(!addresses.isEmpty, "\(host)")
            for address in addresses {
                #expect(!AddressPolicy.standard.verdict(for: address, port: 80).isAllowed, "\(host) → \(address)")
            }
        }
    }
}
