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
