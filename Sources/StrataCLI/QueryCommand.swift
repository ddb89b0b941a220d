import ArgumentParser
import Foundation
import Strata

/// `strata query "SQL"`: runs one statement and prints its rows.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one SQL statement and print its rows as a table, JSON or CSV.",
        discussion: """
            The database must exist: query never creates it. It is opened read-only, and reopened \
            read-write only when the statement writes.

            Formats:
              table  aligned columns; NULL shows as NULL, a blob as an x'hex' literal
              json   an array of objects, keys in column order; integers and reals
                     are numbers, text is a string, NULL is null, a blob is a
                     base64 string
              csv    a header row, then a line per row, quoted as RFC 4180 says;
                     NULL is an empty field, a blob is base64

            With --database postgres://... (a strata built with the PostgreSQL trait), the statement runs \
            on its own and commits when it succeeds, as on SQLite. bool prints as 0 or 1, bytea as a blob, \
            timestamptz as ISO 8601 text, numeric, uuid and jsonb as their text; other types need a cast \
            (x::text). A SELECT that returns no rows prints no header.
            """
    )

    @Argument(help: "One SQL statement.")
    var sql: String

    @OptionGroup var databaseOptions: DatabaseOptions

    @Option(name: .long, help: "The output format.")
    var format: OutputFormat = .table

    func run() async throws {
        try await reportingAsyncErrors {
            guard databaseOptions.exists else {
                throw CommandError("no database at \(databaseOptions.database)")
            }
            let result: QueryResult
            do {
                result = try await Self.run(sql, options: databaseOptions, readOnly: true)
            } catch let error as DatabaseError where error.resultCode?.primary == .readOnly {
                // The statement writes: nothing was changed, so it runs again on a writable connection.
                result = try await Self.run(sql, options: databaseOptions, readOnly: false)
            }
            let output = format.render(result)
            if !output.isEmpty {
                Terminal.write(output)
            }
        }
    }

    /// Runs `sql` on its own, outside any transaction (it commits when it succeeds), on the writer of `options`.
    private static func run(_ sql: String, options: DatabaseOptions, readOnly: Bool) async throws -> QueryResult {
        try await options.withWriter(readOnly: readOnly) { writer in
            try await writer.writeWithoutTransaction { session in
                guard let session = session as? any QueryableSession else {
                    throw CommandError("query cannot print the rows of a \(type(of: session)) session")
                }
                return try await session.queryResult(sql)
            }
        }
    }
}

/// A session whose rows `strata query` prints: SQLite's `Database`, and `PostgresSession` in a strata built with the
/// PostgreSQL trait.
protocol QueryableSession {
    /// The columns and rows of `sql`, one statement, and the rows it changed.
    func queryResult(_ sql: String) async throws -> QueryResult
}

extension Database: QueryableSession {
    func queryResult(_ sql: String) throws -> QueryResult {
        let statement = try prepare(query: sql)
        var rows: [[DatabaseValue]] = []
        while let row = try statement.next() {
            rows.append(try (0..<row.columnCount).map { try row[$0] })
        }
        return QueryResult(columns: statement.columnNames, rows: rows, changes: try changes)
    }
}

/// The rows a statement returned.
struct QueryResult: Sendable {
    var columns: [String]
    var rows: [[DatabaseValue]]
    /// Rows changed, for a statement that returns no columns.
    var changes: Int
    /// Whether the statement returns rows, even with none (and so, on PostgreSQL, no column names).
    var returnsRows: Bool

    init(columns: [String], rows: [[DatabaseValue]], changes: Int, returnsRows: Bool? = nil) {
        self.columns = columns
        self.rows = rows
        self.changes = changes
        self.returnsRows = returnsRows ?? !columns.isEmpty
    }
}
