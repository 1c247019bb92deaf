/// The qualified, quoted names a ``PostgresJobQueue`` uses (prefix and optional schema applied).
struct PostgresQueueNames: Sendable {
    /// The schema, if any.
    let schema: String?
    /// The name prefix.
    let prefix: String

    init(schema: String?, prefix: String) {
        self.schema = schema
        self.prefix = prefix
    }

    private func qualified(_ name: String) -> String {
        let quoted = "\"\(prefix)\(name)\""
        guard let schema else { return quoted }
        return "\"\(schema)\".\(quoted)"
    }

    /// The jobs table.
    var jobs: String { qualified("jobs") }
    /// The results cache table.
    var resultsCache: String { qualified("results_cache") }
    /// The table recording applied migration versions.
    var migrations: String { qualified("schema_migrations") }
    /// An index name (unqualified: indexes live in their table's schema).
    func index(_ name: String) -> String { "\"\(prefix)\(name)\"" }
    /// The quoted schema, if any.
    var quotedSchema: String? { schema.map { "\"\($0)\"" } }
    /// The LISTEN/NOTIFY channel (at most 63 bytes, PostgreSQL's identifier limit).
    var channel: String { String((schema.map { "\($0)_" } ?? "") + prefix + "work").prefix(63).description }
    /// The key of the advisory lock that serialises migrations of this schema + prefix.
    var migrationLockKey: String { "pushmedia-queue-migrations:\(schema ?? ""):\(prefix)" }
}
