extension Database {
    /// Runs one statement with parameters bound from an `Encodable` value or dictionary.
    ///
    /// ```swift
    /// try db.execute(query: "INSERT INTO note (content, created_at) VALUES (:content, :createdAt)", parameters: note)
    /// try db.execute(query: "DELETE FROM note WHERE id = :id", parameters: ["id": 42])
    /// ```
    ///
    /// The statement is prepared once and cached on the connection. It always runs to its end: the rows of a
    /// `RETURNING` clause are stepped through and discarded (``fetchAll(_:query:parameters:decoder:)-2ly3p`` reads
    /// them).
    ///
    /// - Throws: `EncodingError` when a parameter gets no value; `DatabaseError` when SQLite fails, such as a
    ///   constraint violation, with the SQL of the statement.
    ///
    /// See https://www.sqlite.org/c3ref/step.html
    public func execute(query: String, parameters: some Encodable, encoder: StatementEncoder = StatementEncoder())
        throws
    {
        let statement = try cachedStatement(for: query)
        try encoder.encode(parameters, to: statement)
        try statement.perform()
    }

    /// Every row of `query` decoded as `T`.
    ///
    /// ```swift
    /// let notes = try db.fetchAll(Note.self, query: "SELECT * FROM note WHERE content LIKE :q", parameters: ["q": "%swift%"])
    /// let added = try db.fetchAll(
    ///     Note.self, query: "INSERT INTO note (content) VALUES (:a), (:b) RETURNING *", parameters: ["a": "x", "b": "y"])
    /// ```
    ///
    /// The rows of an `INSERT`, `UPDATE` or `DELETE` with a `RETURNING` clause decode as those of a `SELECT` do.
    ///
    /// - **A write whose rows cannot all be decoded is rolled back.** SQLite makes every change of such a statement
    ///   at its first step; when one of its rows does not decode, outside a transaction the changes are rolled back
    ///   (the statement runs in a transaction of its own) before the error is thrown, so a caller that retries never
    ///   writes twice; inside one, the failure fails the transaction as a failed statement does, even when the
    ///   caller catches it, and it rolls back when its block ends.
    ///
    /// Inlinable so that the array of results is built by code specialized for `T`.
    ///
    /// See https://www.sqlite.org/lang_returning.html
    @inlinable
    @_disfavoredOverload
    public func fetchAll<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> [T] {
        try collect(query: query, parameters: QueryParameters(parameters)) {
            decoder.rowDecoder(T.self, for: $0)
        } decode: {
            try $0()
        }
    }

    /// Every row of a one-column `query` as `T`: `try db.fetchAll(String.self, query: "SELECT name FROM foo")`.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchAll<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> [T] {
        try collect(query: query, parameters: QueryParameters(parameters)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// The first row of `query` decoded as `T`, or nil when there is none.
    ///
    /// ```swift
    /// let note = try db.fetchOne(Note.self, query: "INSERT INTO note (content) VALUES (:content) RETURNING *",
    ///                            parameters: ["content": "Hello"])
    /// ```
    ///
    /// - **A write runs to its end when only its first row is read.** An `INSERT`, `UPDATE` or `DELETE` with a
    ///   `RETURNING` clause writes every row, ``Database/changes`` counts them all, and a failure at its end (a
    ///   commit that cannot take its lock) is thrown rather than lost; when the first row does not decode, the
    ///   changes are rolled back, as in ``fetchAll(_:query:parameters:decoder:)-2ly3p``.
    ///
    /// See https://www.sqlite.org/lang_returning.html
    @_disfavoredOverload
    public func fetchOne<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> T? {
        try first(query: query, parameters: QueryParameters(parameters)) {
            try decoder.forRows(of: T.self).makeDecoding(for: $0).decodeRow(T.self)
        }
    }

    /// The first row of a one-column `query` as `T`, or nil when there is none, or when its value is NULL and `T`
    /// cannot hold NULL (`SELECT max(id) FROM note` over an empty table).
    ///
    /// ```swift
    /// let newest = try db.fetchOne(Int64.self, query: "SELECT max(id) FROM note")   // nil: no note yet
    /// ```
    ///
    /// An optional `T` still tells the two apart: `fetchOne(Int64?.self, ...)` is `.some(nil)` for a NULL row.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchOne<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> T? {
        try first(query: query, parameters: QueryParameters(parameters)) { try $0.firstScalar(T.self) } ?? nil
    }

    /// A lazy cursor over the rows of `query`, decoding one row per ``FetchCursor/next()``.
    ///
    /// - **A write is read to its end before the cursor is returned.** The rows of an `INSERT`, `UPDATE` or `DELETE`
    ///   with a `RETURNING` clause, which SQLite holds in memory anyway, are decoded at once: the statement ends and
    ///   its changes commit (or roll back when a row does not decode), where a lazy cursor would keep the write
    ///   lock until it was released.
    ///
    /// - Complexity: O(1) memory in the number of rows of a `SELECT`; O(n) for the rows of a write.
    @_disfavoredOverload
    public func fetchCursor<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> FetchCursor<T> {
        let statement = try cursorStatement(query: query, parameters: QueryParameters(parameters))
        let decoding = decoder.forRows(of: T.self).makeDecoding(for: statement)
        return try cursor(over: statement) { _ in try decoding.decodeRow(T.self) }
    }

    /// A lazy cursor over a one-column `query`, reading each value as `T`.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchCursor<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> FetchCursor<T> {
        try cursor(over: try cursorStatement(query: query, parameters: QueryParameters(parameters))) {
            try $0.scalar(T.self)
        }
    }

    // MARK: Internal

    @usableFromInline
    func prepared(query: String, parameters: QueryParameters) throws -> Statement {
        let statement = try cachedStatement(for: query)
        try parameters.bind(to: statement)
        return statement
    }

    func cursorStatement(query: String, parameters: QueryParameters) throws -> Statement {
        // A cursor keeps its statement across calls, so it gets one of its own rather than a cached one.
        let statement = try prepare(query: query)
        try parameters.bind(to: statement)
        return statement
    }

    @inlinable
    func collect<Context, T>(
        query: String, parameters: QueryParameters, context: (Statement) -> Context,
        decode: (Context) throws -> T
    ) throws -> [T] {
        try collect(statement: try prepared(query: query, parameters: parameters), context: context, decode: decode)
    }

    /// Every row of the prepared and bound `statement`, decoded; inlinable so that the array of results is built
    /// by code specialized for `T`.
    ///
    /// A statement that writes rows runs atomically (see `atomically`): its changes, made at its first step, are
    /// rolled back when a row does not decode.
    @inlinable
    func collect<Context, T>(
        statement: Statement, context: (Statement) -> Context, decode: (Context) throws -> T
    ) throws -> [T] {
        guard statement.writesRows else { return try collectRows(of: statement, context: context, decode: decode) }
        return try atomically(immediate: false) { try collectRows(of: statement, context: context, decode: decode) }
    }

    @inlinable @inline(__always)
    func collectRows<Context, T>(
        of statement: Statement, context: (Statement) -> Context, decode: (Context) throws -> T
    ) throws -> [T] {
        try runLeased(statement) { statement in
            let context = context(statement)
            var results: [T] = []
            while try statement.advance() {
                results.append(try decode(context))
            }
            return results
        }
    }

    /// The first row of `query`, decoded. A statement that writes rows runs atomically, as in `collect`, and to
    /// its end: SQLite made its changes at the first step, but the statement ends, and a commit of its own would
    /// report a failure, only at its last step; a reset before it would drop that failure.
    func first<T>(query: String, parameters: QueryParameters, decode: (Statement) throws -> T) throws -> T? {
        try first(statement: try prepared(query: query, parameters: parameters), decode: decode)
    }

    /// The first row of the prepared and bound `statement`, decoded, as `first(query:parameters:decode:)` reads it.
    func first<T>(statement: Statement, decode: (Statement) throws -> T) throws -> T? {
        guard statement.writesRows else {
            return try runLeased(statement) { statement in
                guard try statement.next() != nil else { return nil }
                let first = try decode(statement)
                // `PRAGMA journal_mode = wal` returns its row before it commits: run it to the end, as below.
                if statement.changesDatabaseOtherwise {
                    while try statement.advance() {}
                }
                return first
            }
        }
        return try atomically(immediate: false) {
            try runLeased(statement) { statement in
                guard try statement.advance() else { return nil }
                let first = try decode(statement)
                while try statement.advance() {}
                return first
            }
        }
    }

    /// A cursor over the rows of `statement`, a statement of its own (see `cursorStatement`): lazy over a `SELECT`,
    /// over rows read at once for a statement that writes rows, which then ends before the cursor is returned.
    func cursor<T>(over statement: Statement, decode: @escaping (Statement) throws -> T) throws -> FetchCursor<T> {
        guard statement.writesRows else { return FetchCursor(statement: statement, decode: decode) }
        return FetchCursor(elements: try collect(statement: statement, context: { $0 }, decode: decode))
    }
}

extension Statement {
    /// The only column of the current row as `T`.
    /// The only column of the current row as `T` for `fetchOne`: nil when it is NULL and `T` cannot hold NULL, as
    /// the value of an aggregate over no row (`max(id)`) is.
    func firstScalar<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T? {
        if columnCount == 1, isNull(at: 0) {
            return try? T.decoded(from: .null, using: strategies)
        }
        return try scalar(T.self)
    }

    func scalar<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        guard columnCount == 1 else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "fetching \(T.self) needs a query with one column; this one has \(columnCount)", sql: sql)
        }
        let value: DatabaseValue
        do {
            value = try storedValue(at: 0)
        } catch {
            throw conversionError(error, reading: T.self, from: .null, at: 0)
        }
        do {
            return try T.decoded(from: value, using: strategies)
        } catch {
            throw conversionError(error, reading: T.self, from: value, at: 0)
        }
    }
}
