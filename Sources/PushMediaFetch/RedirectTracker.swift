import Foundation

/// The redirect-following state machine: a pure value that, given a response status and
/// `Location`, says whether to stop, follow, or fail.
///
/// The fetcher follows redirects itself (the HTTP client's automatic following is off) so that
/// each hop's scheme, userinfo and resolved addresses are checked before it is contacted.
public struct RedirectTracker: Sendable, Hashable {
    /// What to do with a response.
    public enum Step: Sendable, Hashable {
        /// Not a redirect: the response is final.
        case done
        /// Request this URL next.
        case follow(SourceURL)
    }

    /// The most redirects that may be followed.
    public let maxRedirects: Int
    /// The URL being requested now (after the redirects followed so far).
    public private(set) var current: SourceURL
    /// How many redirects have been followed.
    public private(set) var redirectCount = 0

    /// Starts at `initial`.
    public init(initial: SourceURL, maxRedirects: Int) {
        self.current = initial
        self.maxRedirects = max(0, maxRedirects)
    }

    /// Statuses that are followed: 301, 302, 303, 307, 308 (always re-sent as `GET`).
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Handles the response to ``current``.
    ///
    /// - Returns: ``Step/done`` for a non-redirect status, or ``Step/follow(_:)`` with the next URL,
    ///   which becomes ``current``.
    /// - Throws: `download_failed` for a redirect without a usable `Location` or past the limit;
    ///   `source_forbidden` when the target has a non-http(s) scheme or userinfo.
    public mutating func handle(status: Int, location: String?) throws(SourceFetchError) -> Step {
        guard Self.redirectStatuses.contains(status) else { return .done }
        guard let location = location?.trimmingCharacters(in: .whitespaces), !location.isEmpty,
            let target = URL(string: location, relativeTo: current.url)?.absoluteURL
        else {
            throw .downloadFailed("\(current): HTTP \(status) redirect without a valid Location", permanent: true)
        }
        guard redirectCount < maxRedirects else {
            throw .downloadFailed(
                "\(current): too many redirects (limit \(maxRedirects))",
                permanent: true
            )
        }
        let next = try SourceURL(url: target)
        redirectCount += 1
        current = next
        return .follow(next)
    }
}
