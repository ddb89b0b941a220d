/// SQLite's spelling: `?` placeholders, `ON CONFLICT ... excluded`, `LIKE` as it is, NULL already smallest.
///
/// A request's `sql` is its text in this dialect: `request.sql(for: SQLiteDialect())`.
public struct SQLiteDialect: SQLDialect {
    public init() {}

    /// `?`: SQLite numbers its values in order.
    public func placeholder(_ index: Int) -> String { "?" }

    /// `:name`.
    public func namedPlaceholder(_ name: String) -> String { ":" + name }

    /// `ON CONFLICT ("id") DO UPDATE SET "a" = excluded."a"`, or `DO NOTHING` when the key is the only column.
    ///
    /// See https://sqlite.org/lang_upsert.html
    public func upsertClause(conflictColumn: String, columns: [String]) -> String {
        let assignments = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return " ON CONFLICT (\(conflictColumn)) " + (columns.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(assignments)")
    }

    /// ` RETURNING *`.
    public var returningAllColumns: String { " RETURNING *" }

    /// `SQLSyntax.sqlite`.
    public var syntax: SQLSyntax { .sqlite }

    /// `LIKE`, which is already ASCII case-insensitive without an escape character.
    public var like: (operator: String, collation: String?, defaultEscape: String?) { ("LIKE", nil, nil) }

    /// ` COLLATE name`, `SQLCollation.decimal` included (Strata registers it on every connection).
    public func collate(_ collation: SQLCollation) -> String? {
        " COLLATE " + ((try? quote(collation.name)) ?? "BINARY")
    }

    /// Nothing: SQLite sorts NULL before every value.
    public func nullsOrder(descending: Bool) -> String { "" }
}

extension QueryRequest {
    /// The SQL the request runs on SQLite, with `?` for each bound value: for logs and tests. The same as
    /// `sql(for: SQLiteDialect())`; `sql(for:)` shows another backend's text.
    ///
    /// ```swift
    /// print(Note.filter(Column("mood") == "happy").limit(10).sql)
    /// // SELECT "note".* FROM "note" WHERE "note"."mood" = ? LIMIT ?
    /// ```
    public var sql: String {
        sql(for: SQLiteDialect())
    }
}

extension JoinRequest {
    /// The SQL the request runs on SQLite, with `?` for each bound value: `sql(for: SQLiteDialect())`.
    public var sql: String { sql(for: SQLiteDialect()) }
}

extension LeftJoinRequest {
    /// The SQL the request runs on SQLite, with `?` for each bound value: `sql(for: SQLiteDialect())`.
    public var sql: String { sql(for: SQLiteDialect()) }
}

extension JoinRequest3 {
    /// The SQL the request runs on SQLite, with `?` for each bound value: `sql(for: SQLiteDialect())`.
    public var sql: String { sql(for: SQLiteDialect()) }
}
