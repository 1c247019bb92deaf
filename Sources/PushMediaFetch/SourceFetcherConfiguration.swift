import Foundation

/// Limits and policy for ``SourceFetcher``. The defaults are the production settings.
public struct SourceFetcherConfiguration: Sendable {
    /// The largest body accepted, in bytes (default 200 MB). Refused early from `Content-Length`
    /// and while streaming once passed → `input_too_large`.
    public var maxBytes: Int64
    /// TCP (and TLS) connect timeout (default 10 s).
    public var connectTimeout: Duration
    /// The longest wait for the next bytes of a response (default 30 s).
    public var readTimeout: Duration
    /// The deadline for the whole download, all redirects and the body included (default 120 s).
    public var totalTimeout: Duration
    /// The most redirects followed (default 5).
    public var maxRedirects: Int
    /// The `User-Agent` header, e.g. `pushmedia/1.4.0`.
    public var userAgent: String
    /// Turns the address check off (for internal CDNs on private addresses). Scheme and
    /// userinfo checks stay on. Default `false`.
    public var allowPrivateSources: Bool
    /// The address policy used when ``allowPrivateSources`` is `false` (default ``AddressPolicy/standard``).
    public var addressPolicy: AddressPolicy
    /// Where temporary files are created (default: the system temporary directory).
    public var temporaryDirectory: URL

    /// Creates a configuration; `version` makes the User-Agent `pushmedia/<version>`.
    public init(
        version: String,
        maxBytes: Int64 = 200 * 1024 * 1024,
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30),
        totalTimeout: Duration = .seconds(120),
        maxRedirects: Int = 5,
        allowPrivateSources: Bool = false,
        addressPolicy: AddressPolicy = .standard,
        temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) {
        self.maxBytes = maxBytes
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.userAgent = "pushmedia/\(version)"
        self.allowPrivateSources = allowPrivateSources
        self.addressPolicy = addressPolicy
        self.temporaryDirectory = temporaryDirectory
    }
}
