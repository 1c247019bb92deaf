/// A CIDR block such as `10.0.0.0/8` or `fe80::/10`.
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (host bits are cleared on creation).
    public let network: IPAddress
    /// The number of leading bits that are fixed.
    public let prefixLength: Int

    /// Creates a block; host bits of `address` are cleared. `nil` if the prefix is out of range.
    public init?(_ address: IPAddress, prefixLength: Int) {
        let maxBits = address.bytes.count * 8
        guard prefixLength >= 0, prefixLength <= maxBits else { return nil }
        self.network = IPAddress(bytes: Self.mask(address.bytes, prefixLength))!
        self.prefixLength = prefixLength
    }

    /// Parses `address/prefix`; a bare address means a single-address block.
    public init?(_ cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else { return nil }
        let prefix: Int
        if parts.count == 2 {
            guard let parsed = Int(parts[1]) else { return nil }
            prefix = parsed
        } else {
            prefix = address.bytes.count * 8
        }
        self.init(address, prefixLength: prefix)
    }

    /// Whether `address` lies in this block. Addresses of the other family never match.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.family == network.family else { return false }
        return Self.mask(address.bytes, prefixLength) == network.bytes
    }

    /// `network/prefixLength`.
    public var description: String { "\(network)/\(prefixLength)" }

    private static func mask(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let bitsBefore = index * 8
            if bitsBefore >= prefixLength {
                result[index] = 0
            } else if prefixLength - bitsBefore < 8 {
                let keep = prefixLength - bitsBefore
                result[index] &= UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
            }
        }
        return result
    }
}
