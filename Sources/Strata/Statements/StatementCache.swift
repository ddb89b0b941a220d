/// Prepared statements kept for reuse by SQL text, least recently used dropped first.
///
/// Records and typed fetches prepare the same SQL again and again; the cache makes each of
/// those a dictionary lookup instead of a compile.
struct StatementCache {
    /// How many statements a connection keeps.
    var capacity = 64

    private var statements: [String: Entry] = [:]
    private var clock: UInt64 = 0

    private struct Entry {
        let statement: Statement
        var lastUse: UInt64
    }

    /// The cached statement for `sql`, counted as used. One hash of `sql`.
    mutating func statement(for sql: String) -> Statement? {
        guard let index = statements.index(forKey: sql) else { return nil }
        clock &+= 1
        statements.values[index].lastUse = clock
        return statements.values[index].statement
    }

    mutating func insert(_ statement: Statement) {
        if statements.count >= capacity,
            let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            statements[oldest] = nil
        }
        clock &+= 1
        statements[statement.sql] = Entry(statement: statement, lastUse: clock)
    }

    mutating func removeAll() {
        statements.removeAll()
    }

    var count: Int { statements.count }
}

extension Database {
    /// The connection's cached prepared statement for `query`, prepared and cached on first use, handed out reset
    /// and with every parameter cleared to NULL: a hot loop binds and runs it without compiling SQL again.
    ///
    /// ```swift
    /// let insert = try db.cachedStatement(query: "INSERT INTO tag (name) VALUES (:name)")
    /// for name in ["swift", "sqlite"] {
    ///     try insert.bind(value: name, for: "name")
    ///     try insert.perform()
    /// }
    /// ```
    ///
    /// The connection keeps the 64 statements used most recently. Use the statement before asking for the same
    /// SQL again: a fetch of the same SQL meanwhile rewinds it. A statement still in use by a fetch further up the
    /// stack is not shared; a fresh one is returned.
    ///
    /// See https://www.sqlite.org/c3ref/prepare.html
    public func cachedStatement(query: String) throws -> Statement {
        let statement = try cachedStatement(for: query)
        statement.clearBindings()
        return statement
    }

    /// A prepared statement for `sql` from the connection's cache, rewound, prepared and cached on
    /// first use. Its bindings are the caller's to set: binders clear them (see `QueryParameters`).
    ///
    /// When the cached statement is in use further up the stack (a decode that fetches the same
    /// query again), a fresh uncached statement is returned instead.
    func cachedStatement(for sql: String) throws -> Statement {
        if let statement = statementCache.statement(for: sql) {
            if statement.isLeased {
                return try prepare(query: sql)
            }
            statement.reset()
            statement.strategies = strategies
            return statement
        }
        let statement = try Statement(database: self, sql: sql, persistent: true)
        statementCache.insert(statement)
        return statement
    }
}
