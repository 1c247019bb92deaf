/// How to reach a PostgreSQL queue and where its tables live.
public struct PostgresQueueConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// TLS use, with libpq's meanings (`prefer` and `require` do not verify the certificate).
    public enum SSLMode: String, Sendable, Hashable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without certificate verification (the default).
        case prefer
        /// TLS required, without certificate verification.
        case require
        /// TLS required with full certificate and host name verification.
        case verifyFull = "verify-full"
    }

    /// The server host.
    public var host: String
    /// The server port.
    public var port: Int
    /// The user name.
    public var username: String
    /// The password, if any.
    public var password: String?
    /// The database name.
    public var database: String
    /// The schema holding the tables; `nil` uses the connection's search path (usually `public`).
    public var schema: String?
    /// The prefix of table, index and NOTIFY channel names.
    public var prefix: String
    /// TLS use.
    public var sslMode: SSLMode
    /// The most connections the pool opens.
    public var maximumConnections: Int

    /// The default table name prefix.
    public static let defaultPrefix = "pushmedia_"

    /// Creates a configuration.
    public init(
        host: String, port: Int = 5432, username: String, password: String?, database: String,
        schema: String? = nil, prefix: String = PostgresQueueConfiguration.defaultPrefix,
        sslMode: SSLMode = .prefer, maximumConnections: Int = 10
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.prefix = prefix
        self.sslMode = sslMode
        self.maximumConnections = maximumConnections
    }

    /// Whether `value` is a plain lower-case SQL identifier (safe to put in SQL text).
    public static func isValidIdentifier(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, value.unicodeScalars.count <= 40 else { return false }
        guard first == "_" || ("a"..."z").contains(first) else { return false }
        return value.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// The URL with the password hidden.
    public var description: String {
        var query: [String] = []
        if let schema { query.append("schema=\(schema)") }
        if prefix != Self.defaultPrefix { query.append("prefix=\(prefix)") }
        if sslMode != .prefer { query.append("sslmode=\(sslMode.rawValue)") }
        let auth = password == nil ? username : "\(username):***"
        return "postgres://\(auth)@\(host):\(port)/\(database)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
