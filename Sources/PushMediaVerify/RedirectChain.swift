import Foundation

/// The redirects of one fetch, followed as the phones follow them but only where verify may go:
/// a pure value that, given each response's status and `Location`, says what to request next or
/// why the chain stops there.
///
/// The phones refuse a redirect to `http` (App Transport Security on iOS; Android's
/// `HttpURLConnection` does not follow a change of protocol, and Android 9 refuses cleartext) and
/// give up past their limit (CFNetwork 16, OkHttp 20). verify also stops at a URL it has already
/// requested (a loop, which a phone would run round until its limit) and at a host the manifest
/// does not name (verify goes nowhere else, see docs/security.md).
public struct RedirectChain: Sendable, Equatable {
    /// What to do after a response.
    public enum Step: Sendable, Equatable {
        /// Not a redirect: this response is the final one.
        case final
        /// Request this URL next.
        case follow(URL)
        /// A redirect that is not followed.
        case stop(Stop)
    }

    /// Why a redirect is not followed.
    public enum Stop: Sendable, Equatable {
        /// To a plain `http` URL, which the phones refuse.
        case toHTTP(String)
        /// Back to a URL already requested in this chain.
        case loop(String)
        /// One more than the limit.
        case tooMany(limit: Int)
        /// To a host (and port) the manifest does not name.
        case offHost(String)
        /// A redirect status without a `Location` a phone can use (missing, not a URL, another scheme).
        case broken(status: Int, location: String?)
    }

    /// Statuses the phones follow.
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The most redirects followed.
    public let limit: Int
    /// `host:port` of every host the chain may visit (``authority(of:)``).
    public let allowedAuthorities: Set<String>
    /// Every URL requested so far, the first one first; the last is the one being requested.
    public private(set) var visited: [URL]

    public init(start: URL, limit: Int, allowedAuthorities: Set<String>) {
        self.limit = max(0, limit)
        self.allowedAuthorities = allowedAuthorities
        visited = [start]
    }

    /// The URL being requested now.
    public var current: URL { visited[visited.count - 1] }

    /// Redirects followed so far.
    public var redirects: Int { visited.count - 1 }

    /// Handles the response to ``current``; a followed redirect becomes ``current``.
    public mutating func next(status: Int, location: String?) -> Step {
        guard Self.redirectStatuses.contains(status) else { return .final }
        guard let text = location?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
            let target = URL(string: text, relativeTo: current)?.absoluteURL, let scheme = target.scheme?.lowercased(),
            target.host?.isEmpty == false
        else {
            return .stop(.broken(status: status, location: location))
        }
        if scheme == "http" { return .stop(.toHTTP(target.absoluteString)) }
        guard scheme == "https", let authority = Self.authority(of: target) else {
            return .stop(.broken(status: status, location: location))
        }
        let key = Self.comparable(target)
        if visited.contains(where: { Self.comparable($0) == key }) { return .stop(.loop(target.absoluteString)) }
        guard redirects < limit else { return .stop(.tooMany(limit: limit)) }
        guard allowedAuthorities.contains(authority) else { return .stop(.offHost(authority)) }
        visited.append(target)
        return .follow(target)
    }

    /// `host:port` of an http(s) URL, the host lowercased without IPv6 brackets, the port
    /// explicit (443 or 80 by default); nil for another scheme or no host.
    public static func authority(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL as loops compare it: without its fragment, scheme and host lowercased, the port explicit.
    private static func comparable(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.fragment = nil
        let rest = (components?.percentEncodedPath ?? url.path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        return (authority(of: url) ?? url.absoluteString) + rest
    }
}
