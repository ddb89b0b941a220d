internal import PostgresNIO
public import StrataCore

extension PostgresSession {
    /// The rows of `request` decoded as its model one at a time, as they arrive.
    ///
    /// - Complexity: O(1) memory in the number of rows.
    public func fetchCursor<Record: Model>(_ request: QueryRequest<Record>) async throws -> PostgresCursor<Record> {
        try await cursor(Record.self, try select(request), decoder: RowDecoder())
    }

    /// Deletes the rows of `request`.
    ///
    /// ```swift
    /// let deleted = try await db.deleteAll(Note.filter(Column("id") > 100))
    /// ```
    ///
    /// A request with joins, an order or a limit deletes the rows it selects (`key IN (SELECT ...)`), as on SQLite.
    ///
    /// - Returns: The number of rows deleted.
    @discardableResult
    public func deleteAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> Int {
        let handle = try await rowHandle(for: request)
        return try await collect(
            try statement(request.renderDelete(returning: false, rowHandle: handle, dialect: PostgresDialect()))
        ).changes
    }

    /// Deletes the rows of `request` and returns them as they were (`DELETE ... RETURNING *`), as on SQLite.
    ///
    /// ```swift
    /// let expired = try await db.deleteAndFetchAll(Note.filter(Column("mood") == "sad"))
    /// ```
    ///
    /// The rows come back in no set order. A row that does not decode throws and fails the `write` it runs in, which
    /// rolls the delete back even when the body catches the error; outside a write, the delete runs in a transaction of
    /// its own and is rolled back.
    public func deleteAndFetchAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> [Record] {
        let handle = try await rowHandle(for: request)
        let delete = try statement(request.renderDelete(returning: true, rowHandle: handle, dialect: PostgresDialect()))
        return try await decodeAll(Record.self, delete, decoder: RowDecoder())
    }

    /// Sets `assignments` on the rows of `request`.
    ///
    /// ```swift
    /// let updated = try await db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "happy"))
    /// ```
    ///
    /// - Returns: The number of rows changed.
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    @discardableResult
    public func updateAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...)
        async throws -> Int
    {
        let handle = try await rowHandle(for: request)
        let update = try request.renderUpdate(
            assignments, returning: false, rowHandle: handle, dialect: PostgresDialect())
        return try await collect(try statement(update)).changes
    }

    /// Sets `assignments` on the rows of `request` and returns them as they are after the update
    /// (`UPDATE ... RETURNING *`), as on SQLite.
    ///
    /// ```swift
    /// let calmed = try await db.updateAndFetchAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "calm"))
    /// ```
    ///
    /// The rows come back in no set order. A row that does not decode throws and fails the `write` it runs in, which
    /// rolls the update back even when the body catches the error; outside a write, the update runs in a transaction of
    /// its own and is rolled back.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    public func updateAndFetchAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...)
        async throws -> [Record]
    {
        let handle = try await rowHandle(for: request)
        let update = try request.renderUpdate(
            assignments, returning: true, rowHandle: handle, dialect: PostgresDialect())
        return try await decodeAll(Record.self, try statement(update), decoder: RowDecoder())
    }

    // MARK: Internal

    /// The primary key columns of the request's table, which name its rows for an `UPDATE` or `DELETE` that the
    /// request's own `WHERE` cannot choose them by (joins, an order, a limit); nil when the table has none. Read
    /// from the catalog each time (never cached, so a schema change cannot make it stale); a request of filters
    /// alone reads nothing. Not `ctid`: a row's `ctid` changes when a concurrent update moves it.
    func rowHandle<Record: Model>(for request: QueryRequest<Record>) async throws -> RowHandle? {
        guard !request.isFilterOnly else { return nil }
        let key = try await fetchAll(
            String.self,
            query: """
                SELECT a.attname::text FROM pg_index i
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                WHERE i.indrelid = to_regclass(:table) AND i.indisprimary
                ORDER BY array_position(i.indkey::int2[], a.attnum)
                """,
            parameters: ["table": try PostgresDialect().quote(Record.tableName)])
        return key.isEmpty ? nil : .key(key)
    }

    /// The request's SELECT in PostgreSQL's dialect, with its values in `$n` order: the request's own values,
    /// then the named values of its raw fragments.
    func select(_ request: QueryRequest<some Model>) throws -> PostgresStatement {
        try statement(request.rendered(for: PostgresDialect()))
    }

    /// A rendered request as a statement, or the failure of its rendering.
    func statement(_ select: (sql: String, rendered: RenderedSQL, failure: DatabaseError?)) throws
        -> PostgresStatement
    {
        if let failure = select.failure { throw failure.withSQL(select.sql) }
        return try statement(select.rendered)
    }

    /// Rendered SQL as a statement: the named parameters of its raw fragments numbered after its own `$n`.
    func statement(_ rendered: RenderedSQL) throws -> PostgresStatement {
        let text = try PostgresStatementText(
            rendered.sql, positionalCount: rendered.positional.count, questionMarks: false)
        var values = try rendered.positional.map { try PostgresValue.make(convertible: $0.value) }
        for name in text.names {
            guard let value = rendered.named[name] else {
                throw DatabaseError(
                    code: .unknownParameter, message: "no value for the parameter :\(name)", sql: rendered.sql)
            }
            values.append(try PostgresValue.make(convertible: value.value))
        }
        return PostgresStatement(sql: text.sql, values: values)
    }
}
