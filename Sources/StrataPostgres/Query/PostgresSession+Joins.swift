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
    /// The SELECT puts the column `NULL AS "strata_join_separator"` between two tables' columns and each row is
    /// split there, as on SQLite.
    public func fetchAll<First: Model, Second: Model>(_ request: JoinRequest<First, Second>) async throws
        -> [(First, Second)]
    {
        try await joinedRows(request.base, tables: 2) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self))
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
        try await joinedRows(request.base, tables: 2) { parts in
            (try parts[0].decode(First.self), parts[1].isAllNull ? nil : try parts[1].decode(Second.self))
        }
    }

    /// Every row of a three-table join request, as triples of models, each reading its own table's columns.
    ///
    /// ```swift
    /// let rows = try await db.fetchAll(
    ///     Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id"))
    ///         .joining(Author.self, on: Column("id", table: Author.self) == Column("authorId")))
    /// ```
    public func fetchAll<First: Model, Second: Model, Third: Model>(_ request: JoinRequest3<First, Second, Third>)
        async throws -> [(First, Second, Third)]
    {
        try await joinedRows(request.base, tables: 3) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self), try parts[2].decode(Third.self))
        }
    }

    // MARK: Internal

    /// Runs the join SELECT of `request` and makes a value of each row's parts, one per table, split at the
    /// separator columns.
    private func joinedRows<Record: Model, Value>(
        _ request: QueryRequest<Record>, tables: Int, _ make: ([JoinedPart]) throws -> Value
    ) async throws -> [Value] {
        let statement = try statement(request.renderJoinSelect(dialect: PostgresDialect()))
        let rows = try await collect(statement).rows
        guard let first = rows.first else { return [] }
        let names = first.map(\.columnName)
        let bounds = try QueryRequest<Record>.joinedColumns(names: names, tables: tables, sql: statement.sql)
        let columns = bounds.map { PostgresColumns(Array(names[$0])) }
        return try rows.map { row in
            let cells = Array(row)
            return try make(zip(bounds, columns).map { JoinedPart(cells: cells, part: $0, columns: $1) })
        }
    }
}

/// The columns of one table in a joined row.
private struct JoinedPart {
    /// The row's cells.
    let cells: [PostgresCell]
    /// The indexes of the table's cells.
    let part: Range<Int>
    /// Their names.
    let columns: PostgresColumns

    /// Whether every column is NULL: a left join that matched no row.
    var isAllNull: Bool { cells[part].allSatisfy { $0.bytes == nil } }

    /// The part decoded as a model, with the model's key strategy.
    func decode<T: Model>(_ type: T.Type) throws -> T {
        try PostgresRowDecoder(RowDecoder(), for: T.self).decode(T.self, cells: cells, columns: columns, part: part)
    }
}
