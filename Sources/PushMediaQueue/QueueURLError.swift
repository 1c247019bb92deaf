/// Why a queue URL could not be parsed.
public enum QueueURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The scheme is not `sqlite`, `postgres` or `postgresql`.
    case unsupportedScheme(url: String, scheme: String?)
    /// A `sqlite:` URL without a path.
    case missingPath(url: String)
    /// A `sqlite://host/...` URL (only `sqlite:PATH` and `sqlite:///abs/path` are accepted).
    case unexpectedHost(url: String, host: String)
    /// A PostgreSQL URL without a host.
    case missingHost(url: String)
    /// A PostgreSQL URL without a user name.
    case missingUser(url: String)
    /// A PostgreSQL URL without a database name.
    case missingDatabase(url: String)
    /// The URL is not a well-formed URL.
    case malformed(url: String)
    /// A query item the queue does not know.
    case unknownParameter(url: String, name: String)
    /// A schema or prefix that is not a plain lower-case SQL identifier.
    case invalidIdentifier(url: String, name: String, value: String)
    /// An `sslmode` value that is not supported.
    case invalidSSLMode(url: String, value: String)

    public var description: String {
        switch self {
        case .unsupportedScheme(let url, let scheme):
            "queue URL '\(url)': unsupported scheme '\(scheme ?? "")' (use sqlite:PATH or postgres://user:pass@host:port/db)"
        case .missingPath(let url):
            "queue URL '\(url)': missing file path (e.g. sqlite:queue.sqlite or sqlite:///var/lib/pushmedia/queue.sqlite)"
        case .unexpectedHost(let url, let host):
            "queue URL '\(url)': sqlite URLs take no host ('\(host)'); use sqlite:relative/path or sqlite:///absolute/path"
        case .missingHost(let url):
            "queue URL '\(redacted(url))': missing host"
        case .missingUser(let url):
            "queue URL '\(redacted(url))': missing user name"
        case .missingDatabase(let url):
            "queue URL '\(redacted(url))': missing database name (postgres://user:pass@host:port/DATABASE)"
        case .malformed(let url):
            "queue URL '\(redacted(url))' is not a valid URL"
        case .unknownParameter(let url, let name):
            "queue URL '\(redacted(url))': unknown parameter '\(name)' (known: schema, prefix, sslmode)"
        case .invalidIdentifier(let url, let name, let value):
            "queue URL '\(redacted(url))': \(name) '\(value)' must be lower-case letters, digits and underscores, not starting with a digit, at most 40 characters"
        case .invalidSSLMode(let url, let value):
            "queue URL '\(redacted(url))': sslmode '\(value)' is not one of disable, prefer, require, verify-full"
        }
    }

    /// Hides a password in `scheme://user:password@host`.
    private func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].lastIndex(of: "@") else {
            return url
        }
        let userInfo = url[schemeEnd.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
