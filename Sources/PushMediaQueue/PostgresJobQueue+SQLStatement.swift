import PostgresNIO

extension PostgresJobQueue {
    /// SQL text with numbered binds (`$1`, `$2`, …), built piece by piece.
    struct SQLStatement {
        var sql = ""
        var binds = PostgresBindings()

        /// Appends `value` to the binds and returns its placeholder.
        mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }

        /// Appends `value` (NULL when nil) to the binds and returns its placeholder.
        mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }

        var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }

        /// Appends the `SELECT columns … FOR UPDATE [SKIP LOCKED]` of the jobs `selection` picks.
        mutating func appendSelect(
            _ selection: JobSelection, names: PostgresQueueNames, columns: String = PostgresJobQueue.columns
        ) {
            var conditions: [String] = []
            if let ids = selection.ids {
                if ids.count == 1 {
                    conditions.append("id = \(bind(ids[0]))")
                } else {
                    conditions.append("id = ANY(\(bind(ids))::bigint[])")
                }
            }
            if let states = selection.states {
                conditions.append("state = ANY(\(bind(states.map(\.rawValue)))::text[])")
            }
            if let campaign = selection.campaign {
                conditions.append("campaign = \(bind(campaign))")
            }
            if let due = selection.runAtDueBy {
                conditions.append("run_at <= \(bind(due))")
            }
            if let owner = selection.leaseOwner {
                conditions.append("lease_owner = \(bind(owner))")
            }
            if let expiry = selection.leaseExpiredBy {
                conditions.append("lease_expires_at <= \(bind(expiry))")
            }
            sql += "SELECT \(columns) FROM \(names.jobs)"
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            appendOrder(selection.order)
            if let limit = selection.limit { sql += " LIMIT \(bind(limit))" }
            sql += selection.skipsLockedJobs ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE"
        }

        /// Appends the `ORDER BY` of `order`, its columns qualified by `prefix`.
        mutating func appendOrder(_ order: JobSelection.Order, prefix: String = "") {
            switch order {
            case .id: sql += " ORDER BY \(prefix)id"
            case .runAtThenID: sql += " ORDER BY \(prefix)run_at, \(prefix)id"
            }
        }
    }
}
