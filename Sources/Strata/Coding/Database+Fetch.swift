extension Database {
    /// Runs one statement with parameters bound from an `Encodable` value or dictionary.
    ///
    /// ```swift
    /// try db.execute(query: "INSERT INTO note (content, created_at) VALUES (:content, :createdAt)", parameters: note)
    /// try db.execute(query: "DELETE FROM note WHERE id = :id", parameters: ["id": 42])
    /// ```
    ///
    /// The statement is prepared once and cached on the connection.
    ///
    /// - Throws: `EncodingError` when a parameter gets no value; ``DatabaseError`` when SQLite fails.
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
    /// ```
    ///
    /// Inlinable so that the array of results is built by code specialized for `T`.
    @inlinable
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
    public func fetchAll<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> [T] {
        try collect(query: query, parameters: QueryParameters(parameters)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// Every row of a one-column `query` as `T`, for types that are both `Decodable` and
    /// ``DatabaseValueConvertible`` (`String`, `Int`, `Date`, ...): the column is read through the conversion.
    public func fetchAll<T: Decodable & DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> [T] {
        try collect(query: query, parameters: QueryParameters(parameters)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// The first row of `query` decoded as `T`, or nil when there is none.
    public func fetchOne<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> T? {
        try first(query: query, parameters: QueryParameters(parameters)) {
            try decoder.forRows(of: T.self).makeDecoding(for: $0).decodeRow(T.self)
        }
    }

    /// The first row of a one-column `query` as `T`, or nil when there is none.
    public func fetchOne<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> T? {
        try first(query: query, parameters: QueryParameters(parameters)) { try $0.scalar(T.self) }
    }

    /// The first row of a one-column `query` as `T`, or nil when there is none.
    public func fetchOne<T: Decodable & DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> T? {
        try first(query: query, parameters: QueryParameters(parameters)) { try $0.scalar(T.self) }
    }

    /// A lazy cursor over the rows of `query`, decoding one row per ``FetchCursor/next()``.
    ///
    /// - Complexity: O(1) memory in the number of rows.
    public func fetchCursor<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> FetchCursor<T> {
        let statement = try cursorStatement(query: query, parameters: QueryParameters(parameters))
        let decoding = decoder.forRows(of: T.self).makeDecoding(for: statement)
        return FetchCursor(statement: statement) { _ in try decoding.decodeRow(T.self) }
    }

    /// A lazy cursor over a one-column `query`, reading each value as `T`.
    public func fetchCursor<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> FetchCursor<T> {
        FetchCursor(statement: try cursorStatement(query: query, parameters: QueryParameters(parameters))) {
            try $0.scalar(T.self)
        }
    }

    /// A lazy cursor over a one-column `query`, reading each value as `T`.
    public func fetchCursor<T: Decodable & DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> FetchCursor<T> {
        FetchCursor(statement: try cursorStatement(query: query, parameters: QueryParameters(parameters))) {
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
    @inlinable
    func collect<Context, T>(
        statement: Statement, context: (Statement) -> Context, decode: (Context) throws -> T
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

    func first<T>(query: String, parameters: QueryParameters, decode: (Statement) throws -> T) throws -> T? {
        try runLeased(try prepared(query: query, parameters: parameters)) { statement in
            guard try statement.next() != nil else { return nil }
            return try decode(statement)
        }
    }
}

extension Statement {
    /// The only column of the current row as `T`.
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
