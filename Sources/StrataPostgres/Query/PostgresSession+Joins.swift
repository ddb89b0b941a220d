internal import PostgresNIO
public import StrataCore

extension PostgresSession {
    /// Every row of a join request, as pairs of models, each reading its own table's columns even when both have a
    /// column of the same name (`id`).
    ///
    /// ```swift
    /// let withTags = try await db.fetchAll(
    ///     Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    ///
    /// postgres-nio does not tell which table a result column comes from, so the SELECT puts the column
    /// `NULL AS "strata_join_separator"` between the two tables' columns and each row is split there.
    public func fetchAll<First: Model, Second: Model>(_ request: JoinRequest<First, Second>) async throws
        -> [(First, Second)]
    {
        try await joinedRows(request.base) { first, second in
            (try first.decode(First.self), try second.decode(Second.self))
        }
    }

    /// Every row of a left join request: the second model is nil where no row matched (every one of its columns is
    /// NULL), as on SQLite.
    ///
    /// ```swift
    /// let maybe = try await db.fetchAll(Note.leftJoining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    public func fetchAll<First: Model, Second: Model>(_ request: LeftJoinRequest<First, Second>) async throws
        -> [(First, Second?)]
    {
        try await joinedRows(request.base) { first, second in
            (try first.decode(First.self), second.isAllNull ? nil : try second.decode(Second.self))
        }
    }

    // MARK: Internal

    /// The name of the column between two tables' columns in a join's SELECT.
    static let joinSeparator = "strata_join_separator"

    /// Runs the join SELECT of `request` and makes a value of each row's two parts.
    private func joinedRows<Record: Model, Value>(
        _ request: QueryRequest<Record>, _ make: (JoinedPart, JoinedPart) throws -> Value
    ) async throws -> [Value] {
        let statement = try statement(
            request.renderJoinSelect(separator: Self.joinSeparator, dialect: PostgresDialect()))
        let rows = try await collect(statement).rows
        guard let first = rows.first else { return [] }
        let names = first.map(\.columnName)
        guard let separator = names.firstIndex(of: Self.joinSeparator) else {
            throw DatabaseError(
                code: .unknownColumn, message: "the joined row has no \(Self.joinSeparator) column", sql: statement.sql)
        }
        let firstColumns = PostgresColumns(Array(names[..<separator]))
        let secondColumns = PostgresColumns(Array(names[(separator + 1)...]))
        return try rows.map { row in
            let cells = Array(row)
            return try make(
                JoinedPart(cells: Array(cells[..<separator]), columns: firstColumns),
                JoinedPart(cells: Array(cells[(separator + 1)...]), columns: secondColumns))
        }
    }
}

/// The columns of one table in a joined row.
private struct JoinedPart {
    /// The table's cells.
    let cells: [PostgresCell]
    /// Their names.
    let columns: PostgresColumns

    /// Whether every column is NULL: a left join that matched no row.
    var isAllNull: Bool { cells.allSatisfy { $0.bytes == nil } }

    /// The part decoded as a model, with the model's key strategy.
    func decode<T: Model>(_ type: T.Type) throws -> T {
        try PostgresRowDecoder(RowDecoder(), for: T.self).decode(T.self, cells: cells, columns: columns)
    }
}
