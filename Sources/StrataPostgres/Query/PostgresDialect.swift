public import StrataCore

/// PostgreSQL's spelling of what differs between SQL dialects, for Strata's renderer and record SQL: what a request
/// runs on a `PostgresPool` is `request.sql(for: PostgresDialect())`.
///
/// ```swift
/// let request = Note.filter(Column("mood") == "happy").order(Column("createdAt").desc).limit(10)
/// print(request.sql(for: PostgresDialect()))
/// // SELECT "note".* FROM "note" WHERE "note"."mood" = $1 ORDER BY "note"."createdAt" DESC NULLS LAST LIMIT $2
/// ```
///
/// Identifiers are quoted as in SQLite (double quotes, embedded quotes doubled); values are `$n`; named parameters
/// stay `:name` in the SQL Strata builds and are sent as `$n` after the positional ones
/// (``statementText(_:positionalValues:)``).
public struct PostgresDialect: SQLDialect {
    public init() {}

    /// `$1`, `$2`...
    public func placeholder(_ index: Int) -> String { "$\(index)" }

    /// `:name`, numbered when the statement is sent.
    public func namedPlaceholder(_ name: String) -> String { ":" + name }

    /// `ON CONFLICT ("id") DO UPDATE SET "a" = EXCLUDED."a"`, or `DO NOTHING` when the key is the only column.
    ///
    /// See https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
    public func upsertClause(conflictColumn: String, columns: [String]) -> String {
        let assignments = columns.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return " ON CONFLICT (\(conflictColumn)) " + (columns.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(assignments)")
    }

    /// ` RETURNING *`.
    public var returningAllColumns: String { " RETURNING *" }

    /// ``SQLSyntax/postgres``.
    public var syntax: SQLSyntax { .postgres }

    /// `ILIKE` over the `"C"` collation, which folds ASCII letters only, as SQLite's `LIKE` does; `ESCAPE ''`
    /// unless an escape is given, since PostgreSQL's `LIKE` escapes with a backslash by default and SQLite's does not.
    ///
    /// See https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE
    public var like: (operator: String, collation: String?, defaultEscape: String?) { ("ILIKE", "\"C\"", "''") }

    /// Nothing for ``SQLCollation/decimal``: a `numeric` column compares by value already, and a collation on it is
    /// an error. Any other collation by its name.
    public func collate(_ collation: SQLCollation) -> String? {
        collation == .decimal ? nil : " COLLATE " + ((try? quote(collation.name)) ?? "\"C\"")
    }

    /// `NULLS FIRST` ascending and `NULLS LAST` descending: PostgreSQL sorts NULL as larger than every value,
    /// SQLite as smaller, and a request orders the same on both. Left out of an order by the request's model's
    /// primary key, which is never NULL: there PostgreSQL reads the key's index instead of sorting the table.
    public func nullsOrder(descending: Bool) -> String { descending ? " NULLS LAST" : " NULLS FIRST" }

    /// `sql` with each named parameter `:name` numbered `$n` after the `positionalValues` values, every use of one
    /// name the same number: the text sent to the server.
    ///
    /// - Throws: ``DatabaseError/Code/unknownParameter`` for a `$n` beyond the positional values.
    public func statementText(_ sql: String, positionalValues: Int) throws -> String {
        try PostgresStatementText(sql, positionalCount: positionalValues, questionMarks: false).sql
    }
}
