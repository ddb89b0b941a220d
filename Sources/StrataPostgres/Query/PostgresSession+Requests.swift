internal import PostgresNIO
public import StrataCore

extension PostgresSession {
    /// The rows of `request` decoded as its model one at a time, as they arrive.
    ///
    /// - Complexity: O(1) memory in the number of rows.
    public func fetchCursor<Record: Model>(_ request: QueryRequest<Record>) async throws -> PostgresCursor<Record> {
        try await cursor(Record.self, try select(request), decoder: RowDecoder())
    }

    // MARK: Internal

    /// The primary key columns of `type`'s table, which name its rows for an `UPDATE` or `DELETE` that a request's
    /// own `WHERE` cannot choose them by (joins, an order, a limit); nil when the table has none. Read from the
    /// catalog each time (never cached, so a schema change cannot make it stale). Not `ctid`: a row's `ctid` changes
    /// when a concurrent update moves it.
    public func rowHandle<Record: Model>(of type: Record.Type) async throws -> RowHandle? {
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
