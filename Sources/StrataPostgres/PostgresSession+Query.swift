import Foundation
internal import PostgresNIO
package import StrataCore

extension PostgresSession {
    /// What `strata query` prints of one statement: its rows as storable values, whether it returns rows at all (a
    /// `SELECT` with none still does), and the count of rows it changed.
    ///
    /// The SQL is sent as it is, without parameters. A value is an integer, a real, text or a blob as on SQLite:
    /// `bool` is 0 or 1, `bytea` a blob, `timestamptz` ISO 8601 text in UTC with milliseconds, `numeric`, `uuid`,
    /// `json` and `jsonb` their text; another type throws naming it.
    package func rowsOfQuery(_ sql: String) async throws -> (
        columns: [String], rows: [[DatabaseValue]], returnsRows: Bool, changes: Int
    ) {
        // The text as typed, without parameters: a `:name` in it is PostgreSQL's to read.
        let result = try await collectResult(PostgresStatement(sql: sql, values: []))
        guard let first = result.rows.first else {
            return ([], [], result.metadata.command.hasPrefix("SELECT"), result.metadata.rows ?? 0)
        }
        let columns = PostgresColumns(row: first)
        let rows = try result.rows.map { row in
            let cells = PostgresResultRow(row: row, columns: columns)
            return try (0..<columns.names.count).map { index -> DatabaseValue in
                do {
                    let value: DatabaseValue? = try cells[index]
                    return value ?? .null
                } catch {
                    // Dates have no text form in the binary results: print them as ISO 8601.
                    guard let date = try? (cells[index] as Date) else { throw error }
                    let formatter = ISO8601DateFormatter()
                    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                    return .text(formatter.string(from: date))
                }
            }
        }
        return (columns.names, rows, true, result.metadata.rows ?? 0)
    }
}
