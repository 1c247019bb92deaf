/// Raised inside the HTTP client when a freshly opened connection turns out to be to a refused
/// address (the post-connect half of the SSRF check). ``SourceFetcher`` maps it to `source_forbidden`.
struct ForbiddenConnectionError: Error, Sendable {
    /// The peer's address, as text.
    let address: String
    /// The peer's port.
    let port: Int
    /// Why the address is refused.
    let reason: String
}
