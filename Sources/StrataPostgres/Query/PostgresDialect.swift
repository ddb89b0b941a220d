internal import StrataCore

/// PostgreSQL's spelling of what differs between SQL dialects, for Strata's renderer and record SQL.
///
/// Identifiers are quoted as in SQLite (double quotes, embedded quotes doubled); values are `$n`; named parameters
/// stay `:name` in the SQL Strata builds and are sent as `$n` (``PostgresStatementText``).
struct PostgresDialect: SQLDialect {
    /// `$1`, `$2`...
    func placeholder(_ index: Int) -> String { "$\(index)" }

    /// `:name`, numbered when the statement is sent.
    func namedPlaceholder(_ name: String) -> String { ":" + name }

    /// `ON CONFLICT ("id") DO UPDATE SET "a" = EXCLUDED."a"`, or `DO NOTHING` when the key is the only column.
    ///
    /// See https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
    func upsertClause(conflictColumn: String, columns: [String]) -> String {
        let assignments = columns.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return " ON CONFLICT (\(conflictColumn)) " + (columns.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(assignments)")
    }

    /// ` RETURNING *`.
    var returningAllColumns: String { " RETURNING *" }

    var syntax: SQLSyntax { .postgres }

    /// `ILIKE` over the `"C"` collation, which folds ASCII letters only, as SQLite's `LIKE` does; `ESCAPE ''`
    /// unless an escape is given, since PostgreSQL's `LIKE` escapes with a backslash by default and SQLite's does not.
    ///
    /// See https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE
    var like: (operator: String, collation: String?, defaultEscape: String?) { ("ILIKE", "\"C\"", "''") }

    /// Nothing for ``SQLCollation/decimal``: a `numeric` column compares by value already, and a collation on it is
    /// an error. Any other collation by its name.
    func collate(_ collation: SQLCollation) -> String? {
        collation == .decimal ? nil : " COLLATE " + ((try? quote(collation.name)) ?? "\"C\"")
    }

    /// `NULLS FIRST` ascending and `NULLS LAST` descending: PostgreSQL sorts NULL as larger than every value,
    /// SQLite as smaller, and a request orders the same on both.
    func nullsOrder(descending: Bool) -> String { descending ? " NULLS LAST" : " NULLS FIRST" }
}
