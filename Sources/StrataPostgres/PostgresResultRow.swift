internal import PostgresNIO
public import StrataCore

/// One row of a PostgreSQL result, read by column name, index or dynamic member, as Strata's `Row` on SQLite.
///
/// ```swift
/// let row = try await db.fetchAll(query: "SELECT name, age FROM foo")[0]
/// let name: String = try row["name"]
/// let age: Int = try row.age
/// let maybe: Int? = try row[1]          // NULL -> nil
/// ```
///
/// A row is a snapshot: it stays readable after its session ends.
@dynamicMemberLookup
public struct PostgresResultRow: Sendable {
    /// The row as postgres-nio received it.
    let row: PostgresRow
    /// The names of the result's columns.
    let columns: PostgresColumns

    /// The names of the row's columns, in order.
    public var columnNames: [String] { columns.names }

    /// The number of columns, as a SQLite `Row` names it.
    public var columnCount: Int { columns.names.count }

    /// The number of columns (``columnCount``).
    public var count: Int { columnCount }

    /// Whether the row has a column named `name`.
    public func hasColumn(_ name: String) -> Bool {
        columns.index(of: name) != nil
    }

    /// The value of the column named `column`.
    ///
    /// - Throws: ``DatabaseError/Code/unknownColumn`` when the row has no such column; a `DecodingError` naming the
    ///   column, its PostgreSQL type and `T` when the value cannot be read as `T`.
    public subscript<T: Decodable>(_ column: String) -> T {
        get throws {
            guard let index = columns.index(of: column) else {
                let names = columns.names.map { "\"\($0)\"" }.joined(separator: ", ")
                throw DatabaseError(
                    code: .unknownColumn, message: "no column named \"\(column)\"; the row has \(names)")
            }
            return try self[index]
        }
    }

    /// The value of the column at `index`, from 0.
    public subscript<T: Decodable>(_ index: Int) -> T {
        get throws {
            guard columns.names.indices.contains(index) else {
                throw DatabaseError(
                    code: .unknownColumn, message: "no column at index \(index); the row has \(columnCount) columns")
            }
            return try PostgresRowDecoder.value(T.self, at: index, of: Array(row), columns: columns)
        }
    }

    /// `row.name` reads the column `name`.
    public subscript<T: Decodable>(dynamicMember column: String) -> T {
        get throws { try self[column] }
    }

    /// The row decoded as `T`, as `fetchAll(T.self, query:)` decodes it.
    public func decode<T: Decodable>(_ type: T.Type, decoder: RowDecoder = RowDecoder()) throws -> T {
        try PostgresRowDecoder(decoder, for: T.self).decode(T.self, from: row, columns: columns)
    }
}

extension RowDecoder {
    /// Decodes a `T` from `row` (the same call as `row.decode(T.self, decoder: self)`, and as SQLite's
    /// `decode(_:from:)` of a `Row`).
    public func decode<T: Decodable>(_ type: T.Type, from row: PostgresResultRow) throws -> T {
        try row.decode(T.self, decoder: self)
    }
}
