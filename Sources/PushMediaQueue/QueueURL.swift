import Foundation

/// Where a queue lives, parsed from a URL string:
/// - `sqlite:PATH` (relative or absolute) or `sqlite:///abs/path`;
/// - `postgres://user:pass@host:port/db` or `postgresql://…`, with optional query items
///   `schema=NAME`, `prefix=NAME` (default `pushmedia_`) and `sslmode=disable|prefer|require|verify-full`.
public enum QueueURL: Sendable, Hashable, CustomStringConvertible {
    /// An embedded SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL server.
    case postgres(PostgresQueueConfiguration)

    /// Parses a queue URL.
    /// - Throws: ``QueueURLError`` with a message naming the problem.
    public init(parsing string: String) throws(QueueURLError) {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw .unsupportedScheme(url: string, scheme: nil)
        }
        let scheme = trimmed[..<colon].lowercased()
        let rest = String(trimmed[trimmed.index(after: colon)...])
        switch scheme {
        case "sqlite":
            self = .sqlite(path: try Self.parseSQLitePath(rest, url: string))
        case "postgres", "postgresql":
            self = .postgres(try Self.parsePostgres(trimmed, url: string))
        default:
            throw .unsupportedScheme(url: string, scheme: String(scheme))
        }
    }

    private static func parseSQLitePath(_ rest: String, url: String) throws(QueueURLError) -> String {
        var path = rest
        if path.hasPrefix("//") {
            let afterSlashes = path.dropFirst(2)
            let hostEnd = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            let host = afterSlashes[..<hostEnd]
            guard host.isEmpty || host == "localhost" else {
                throw .unexpectedHost(url: url, host: String(host))
            }
            path = String(afterSlashes[hostEnd...])
        }
        path = path.removingPercentEncoding ?? path
        guard !path.isEmpty, path != "/" else { throw .missingPath(url: url) }
        return path
    }

    private static func parsePostgres(_ string: String, url: String) throws(QueueURLError) -> PostgresQueueConfiguration {
        guard let components = URLComponents(string: string) else { throw .malformed(url: url) }
        guard let host = components.host, !host.isEmpty else { throw .missingHost(url: url) }
        guard let user = components.user, !user.isEmpty else { throw .missingUser(url: url) }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw .missingDatabase(url: url) }
        var configuration = PostgresQueueConfiguration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "schema":
                guard PostgresQueueConfiguration.isValidIdentifier(value) else {
                    throw .invalidIdentifier(url: url, name: "schema", value: value)
                }
                configuration.schema = value
            case "prefix":
                guard value.isEmpty || PostgresQueueConfiguration.isValidIdentifier(value) else {
                    throw .invalidIdentifier(url: url, name: "prefix", value: value)
                }
                configuration.prefix = value
            case "sslmode":
                guard let mode = PostgresQueueConfiguration.SSLMode(rawValue: value) else {
                    throw .invalidSSLMode(url: url, value: value)
                }
                configuration.sslMode = mode
            default:
                throw .unknownParameter(url: url, name: item.name)
            }
        }
        return configuration
    }

    /// The URL with any password hidden.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let configuration): configuration.description
        }
    }
}
