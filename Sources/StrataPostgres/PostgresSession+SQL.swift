public import StrataCore

extension PostgresSession {
    /// PostgreSQL's: what requests, records and ``SQL`` values render in.
    public var dialect: PostgresDialect { PostgresDialect() }

    /// Runs `statement`, rendered in PostgreSQL's dialect, and returns how many rows it changed. A text of several
    /// statements that binds no values runs them one after another, as on SQLite; one that binds values is refused
    /// with ``DatabaseError/Code/invalidArgument`` before any of it runs.
    @discardableResult
    public func execute(_ statement: RenderedSQL) async throws -> Int {
        if statement.isScript {
            return try await run(script: statement.sql)
        } else {
            return try await collect(try self.statement(statement)).changes
        }
    }

    /// Every row of `statement`, rendered in PostgreSQL's dialect, decoded as `T`.
    public func fetchAll<T: Decodable>(_ type: T.Type, _ statement: RenderedSQL, decoder: RowDecoder)
        async throws -> [T]
    {
        try await decodeAll(T.self, try self.statement(statement), decoder: decoder)
    }

    /// The first row of `statement`, rendered in PostgreSQL's dialect, decoded as `T`, or nil when there is none, or
    /// when it is one NULL that a scalar `T` cannot hold.
    public func fetchOne<T: Decodable>(_ type: T.Type, _ statement: RenderedSQL, decoder: RowDecoder)
        async throws -> T?
    {
        try await decodeFirst(T.self, try self.statement(statement), decoder: decoder)
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
