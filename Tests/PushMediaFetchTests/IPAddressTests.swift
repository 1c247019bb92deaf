import PushMediaFetch
import Testing

@Suite("IPAddress and IPAddressRange")
struct IPAddressTests {
    @Test func parsesIPv4() throws {
        let address = try #require(IPAddress("192.0.2.1"))
        #expect(address.bytes == [192, 0, 2, 1])
        #expect(address.family == .v4)
        #expect(address.description == "192.0.2.1")
    }

    @Test func parsesIPv6InAllSpellings() throws {
        let plain = try #require(IPAddress("2001:db8::1"))
        #expect(plain.family == .v6)
        #expect(plain.bytes.count == 16)
        #expect(IPAddress("[2001:db8::1]") == plain)
        #expect(IPAddress("2001:0db8:0000:0000:0000:0000:0000:0001") == plain)
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
    }

    @Test(arguments: ["", "1.2.3", "256.1.1.1", "2130706433", "0x7f.1", "::g", "1.2.3.4.5", "localhost", "1::2::3"])
    func rejectsNonCanonicalText(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func bytesInitializerChecksLength() {
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [1, 2, 3, 4])?.family == .v4)
        #expect(IPAddress(bytes: Array(repeating: 0, count: 16))?.family == .v6)
    }

    @Test func rangeContainsItsEdges() throws {
        let range = try #require(IPAddressRange("172.16.0.0/12"))
        #expect(range.contains(IPAddress("172.16.0.0")!))
        #expect(range.contains(IPAddress("172.31.255.255")!))
        #expect(!range.contains(IPAddress("172.15.255.255")!))
        #expect(!range.contains(IPAddress("172.32.0.0")!))
        #expect(!range.contains(IPAddress("::ffff:172.16.0.1")!), "families never match")
    }

    @Test func rangeClearsHostBitsAndParsesEdgeCases() throws {
        #expect(IPAddressRange("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPAddressRange("fe80::1/10")?.description == "fe80::/10")
        #expect(IPAddressRange("1.2.3.4")?.prefixLength == 32)
        #expect(IPAddressRange("::1")?.prefixLength == 128)
        #expect(IPAddressRange("0.0.0.0/0")?.contains(IPAddress("255.255.255.255")!) == true)
        #expect(IPAddressRange("1.2.3.4/33") == nil)
        #expect(IPAddressRange("::/129") == nil)
        #expect(IPAddressRange("1.2.3.4/x") == nil)
        let v6 = try #require(IPAddressRange("fc00::/7"))
        #expect(v6.contains(IPAddress("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")!))
        #expect(!v6.contains(IPAddress("fe00::")!))
        #expect(!v6.contains(IPAddress("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")!))
    }
}
