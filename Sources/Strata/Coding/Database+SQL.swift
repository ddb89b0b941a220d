extension Database {
    /// Runs `sql`, its interpolated values bound.
    ///
    /// ```swift
    /// try db.execute("UPDATE note SET mood = \(mood) WHERE id = \(id)")
    /// ```
    ///
    /// It runs to its end, as ``execute(query:parameters:encoder:)`` does. A text of several statements that binds
    /// no values runs them one after another, as ``execute(query:)`` does; one that binds values is refused with
    /// `DatabaseError.Code.invalidArgument` before any of it runs.
    public func execute(_ sql: SQL) throws {
        let rendered = sql.render(dialect: SQLiteDialect())
        if rendered.failure == nil, rendered.rendered.isScript {
            try execute(query: rendered.rendered.sql)
        } else {
            try preparedRequest(rendered.rendered, failure: rendered.failure).perform()
        }
    }

    /// Every row of `sql` decoded as `T`; a one-column row decodes as a scalar.
    ///
    /// ```swift
    /// let notes = try db.fetchAll(Note.self, "SELECT * FROM note WHERE mood = \(mood)")
    /// ```
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder()) throws -> [T] {
        try collect(statement: try prepared(sql)) {
            decoder.rowDecoder(T.self, for: $0)
        } decode: {
            try $0()
        }
    }

    /// Every row of a one-column `sql` as `T`.
    public func fetchAll<T: DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) throws -> [T] {
        try collect(statement: try prepared(sql)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// Every row of a one-column `sql` as `T`, for types both `Decodable` and storable (`Int`, `String`...).
    public func fetchAll<T: Decodable & DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) throws -> [T] {
        try collect(statement: try prepared(sql)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// The first row of `sql` decoded as `T`, or nil when there is none.
    ///
    /// ```swift
    /// let note = try db.fetchOne(Note.self, "SELECT * FROM note WHERE id = \(id)")
    /// ```
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder()) throws -> T? {
        try first(statement: try prepared(sql)) {
            try decoder.forRows(of: T.self).makeDecoding(for: $0).decodeRow(T.self)
        }
    }

    /// The first row of a one-column `sql` as `T`, or nil when there is none, or when its value is NULL and `T`
    /// cannot hold NULL.
    ///
    /// ```swift
    /// let newest = try db.fetchOne(Int64.self, "SELECT max(id) FROM note WHERE mood = \(mood)")
    /// ```
    public func fetchOne<T: DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) throws -> T? {
        try first(statement: try prepared(sql)) { try $0.firstScalar(T.self) } ?? nil
    }

    /// The first row of a one-column `sql` as `T`, or nil when there is none, or when its value is NULL and `T`
    /// cannot hold NULL.
    public func fetchOne<T: Decodable & DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) throws -> T? {
        try first(statement: try prepared(sql)) { try $0.firstScalar(T.self) } ?? nil
    }

    /// A lazy cursor over the rows of `sql`, decoding one row per ``FetchCursor/next()``, as
    /// ``fetchCursor(_:query:parameters:decoder:)`` reads them.
    @_disfavoredOverload
    public func fetchCursor<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder()) throws
        -> FetchCursor<T>
    {
        let statement = try prepare(sql)
        let decoding = decoder.forRows(of: T.self).makeDecoding(for: statement)
        return try cursor(over: statement) { _ in try decoding.decodeRow(T.self) }
    }

    /// A lazy cursor over a one-column `sql`, reading each value as `T`.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchCursor<T: DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) throws -> FetchCursor<T> {
        try cursor(over: try prepare(sql)) { try $0.scalar(T.self) }
    }

    // MARK: Statements

    /// A prepared statement of its own for `sql`, with its interpolated values bound: step it, read its rows, or
    /// bind other values and run it again.
    ///
    /// ```swift
    /// let statement = try db.prepare("SELECT content FROM note WHERE mood = \(mood) ORDER BY id")
    /// while let row = try statement.next() { print(row["content"] as String) }
    /// ```
    ///
    /// - Throws: `DatabaseError` when the SQL does not compile or a value cannot be bound.
    public func prepare(_ sql: SQL) throws -> Statement {
        let rendered = try sql.rendered(for: SQLiteDialect())
        let statement = try prepare(query: rendered.sql)
        try statement.bind(rendered)
        return statement
    }

    /// The connection's cached statement for `sql` (see ``cachedStatement(query:)``), with its interpolated values
    /// bound.
    ///
    /// - Throws: `DatabaseError` when the SQL does not compile or a value cannot be bound.
    public func cachedStatement(_ sql: SQL) throws -> Statement {
        let rendered = try sql.rendered(for: SQLiteDialect())
        let statement = try cachedStatement(query: rendered.sql)
        try statement.bind(rendered)
        return statement
    }

    // MARK: Internal

    /// The cached statement of `sql`, bound; a failure of its rendering is thrown first, naming the SQL.
    func prepared(_ sql: SQL) throws -> Statement {
        let rendered = sql.render(dialect: SQLiteDialect())
        return try preparedRequest(rendered.rendered, failure: rendered.failure)
    }
}
