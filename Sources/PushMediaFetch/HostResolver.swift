/// Resolves a host name to the addresses a connection may use.
///
/// ``SourceFetcher`` resolves every hop's host with this and checks *every* returned address
/// against its ``AddressPolicy`` before contacting it. The default is ``SystemHostResolver``
/// (`getaddrinfo`); tests may inject their own.
public protocol HostResolver: Sendable {
    /// All addresses for `host` (a name or an IP literal in any spelling `getaddrinfo` accepts).
    /// Throws, or returns an empty array, when the name does not resolve.
    func resolve(host: String, port: Int) async throws -> [IPAddress]
}
