import Foundation

/// A validated http(s) URL to download, with the pieces the fetcher needs.
///
/// Refuses (as `source_forbidden`) any scheme other than `http`/`https` and any URL with
/// userinfo (`user:pass@host`); a URL that cannot be parsed or has no host is `download_failed`.
public struct SourceURL: Hashable, Sendable, CustomStringConvertible {
    /// The full URL, as requested (query included).
    public let url: URL
    /// `http` or `https`, lower-cased.
    public let scheme: String
    /// The host without IPv6 brackets, e.g. `cdn.example.com`, `::1` or `2130706433`.
    public let host: String
    /// The explicit port, or 80/443 from the scheme.
    public let port: Int

    /// Validates `string`.
    public init(_ string: String) throws(SourceFetchError) {
        guard let url = URL(string: string) else {
            throw .downloadFailed("\(Self.redact(string)): not a valid URL", permanent: true)
        }
        try self.init(url: url)
    }

    /// Validates `url`.
    public init(url: URL) throws(SourceFetchError) {
        let safe = Self.redact(url)
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .forbidden("\(safe): only http and https URLs may be downloaded")
        }
        guard url.user == nil, url.password == nil,
            !(url.absoluteString.split(separator: "/", maxSplits: 3).dropFirst().first?.contains("@") ?? false)
        else {
            throw .forbidden("\(safe): URLs with embedded credentials (userinfo) are refused")
        }
        guard var host = url.host, !host.isEmpty else {
            throw .downloadFailed("\(safe): URL has no host", permanent: true)
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw .downloadFailed("\(safe): invalid port \(port)", permanent: true)
        }
        self.url = url
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// The URL for messages and logs: scheme, host, port and path, with no userinfo, query or fragment.
    public var description: String { Self.redact(url) }

    /// Strips userinfo, query and fragment from a URL for use in messages.
    public static func redact(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return redact(url.absoluteString)
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? redact(url.absoluteString)
    }

    /// Strips userinfo, query and fragment from a URL string for use in messages, without parsing it.
    public static func redact(_ string: String) -> String {
        var text = Substring(string)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            text = text[..<cut]
        }
        if let schemeEnd = text.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                text = text[..<authorityStart] + text[text.index(after: at)...]
            }
        }
        return String(text)
    }
}
