public import StrataCore

extension PostgresSession {
    /// Runs `sql`, its interpolated values bound.
    ///
    /// ```swift
    /// try await db.execute("UPDATE note SET mood = \(mood) WHERE id = \(id)")
    /// ```
    public func execute(_ sql: SQL) async throws {
        try await collect(try statement(sql))
    }

    /// Every row of `sql` decoded as `T`; a one-column row decodes as a scalar (`Int`, `String`, `Date`...).
    ///
    /// ```swift
    /// let notes = try await db.fetchAll(Note.self, "SELECT * FROM note WHERE mood = \(mood)")
    /// ```
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        async throws -> [T]
    {
        try await decodeAll(T.self, try statement(sql), decoder: decoder)
    }

    /// The first row of `sql` decoded as `T`, or nil when there is none, or when it is one NULL that a scalar `T`
    /// cannot hold.
    ///
    /// ```swift
    /// let count = try await db.fetchOne(Int.self, "SELECT count(*) FROM note WHERE mood = \(mood)") ?? 0
    /// ```
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        async throws -> T?
    {
        try await decodeFirst(T.self, try statement(sql), decoder: decoder)
    }

    /// The rows of `sql`, decoded as `T` one at a time as they arrive from the server.
    public func fetchCursor<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        async throws -> PostgresCursor<T>
    {
        try await cursor(T.self, try statement(sql), decoder: decoder)
    }

    /// `sql` in PostgreSQL's dialect: its values as `$n`, its named parameters numbered after them.
    func statement(_ sql: SQL) throws -> PostgresStatement {
        try statement(sql.rendered(for: PostgresDialect()))
    }
}
