/// A request's `SELECT`, rendered ahead of time: what a stream carries to its connection's queue, without the model
/// type the request was built on.
struct RenderedSelect: Sendable {
    let sql: String
    let rendered: RenderedSQL
    /// The failure to throw instead of running the SQL (an identifier with a NUL character, for example).
    let failure: DatabaseError?

    init(_ request: QueryRequest<some Model>) {
        (sql, rendered, failure) = request.renderSelect(dialect: SQLiteDialect())
    }
}

extension Database {
    /// A cursor over the rows of `select` decoded as `T`, which reads the selection by its keys: what a stream of a
    /// request reads.
    func requestCursor<T: Decodable>(_ type: T.Type, _ select: RenderedSelect, decoder: RowDecoder) throws
        -> FetchCursor<T>
    {
        let statement = try cursorStatement(for: select)
        let decoding = decoder.forRows(of: T.self).makeDecoding(for: statement)
        return FetchCursor(statement: statement) { _ in try decoding.decodeRow(T.self) }
    }

    /// A cursor over a one-column `select`, reading each value as `T`.
    func scalarCursor<T: DatabaseValueConvertible>(_ type: T.Type, _ select: RenderedSelect) throws -> FetchCursor<T> {
        FetchCursor(statement: try cursorStatement(for: select)) { try $0.scalar(T.self) }
    }

    /// The `SELECT`, prepared and bound: a statement of the cursor's own, not a cached one, since the cursor keeps it
    /// across calls.
    private func cursorStatement(for select: RenderedSelect) throws -> Statement {
        if let failure = select.failure { throw failure.withSQL(select.sql) }
        let statement = try prepare(query: select.sql)
        try statement.bind(select.rendered)
        return statement
    }
}
