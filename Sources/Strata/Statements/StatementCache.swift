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
        var statement: Statement
        var lastUse: UInt64
    }

    /// What the cache has for some SQL.
    enum Lookup {
        /// The cached statement, counted as used.
        case statement(Statement)
        /// The cached statement is in use elsewhere: held by a caller, a loop over its rows or a fetch further up the
        /// stack. It must not be rewound or rebound under them.
        case inUse
        /// Nothing is cached for the SQL.
        case missing
    }

    /// The cached statement for `sql`, counted as used. One hash of `sql`.
    mutating func statement(for sql: String) -> Statement? {
        guard let index = statements.index(forKey: sql) else { return nil }
        clock &+= 1
        statements.values[index].lastUse = clock
        return statements.values[index].statement
    }

    /// The cached statement for `sql` when nothing but the cache holds it, counted as used; `.inUse` when anything
    /// else does (a reference outside the cache means someone may still bind, step or read it). One hash of `sql`.
    mutating func unsharedStatement(for sql: String) -> Lookup {
        guard let index = statements.index(forKey: sql) else { return .missing }
        guard isKnownUniquelyReferenced(&statements.values[index].statement),
            !statements.values[index].statement.isLeased
        else { return .inUse }
        clock &+= 1
        statements.values[index].lastUse = clock
        return .statement(statements.values[index].statement)
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
    /// The connection keeps the 64 statements used most recently.
    ///
    /// - **A statement still in use is never handed out again.** When the cached statement has stepped and not
    ///   finished or been reset (a loop over its rows, a recursive walk asking for the same SQL), this returns a
    ///   fresh statement of its own. Strata's own fetches and executes of the same SQL never use a cached statement
    ///   that a caller holds, so a statement you bound keeps its values until you run it.
    ///
    /// See https://www.sqlite.org/c3ref/prepare.html
    public func cachedStatement(query: String) throws -> Statement {
        guard let statement = statementCache.statement(for: query) else {
            let statement = try Statement(database: self, sql: query, persistent: true)
            statementCache.insert(statement)
            return statement
        }
        guard !statement.isLeased, !statement.isMidRun else {
            return try prepare(query: query)
        }
        statement.reset()
        statement.strategies = strategies
        statement.clearBindings()
        return statement
    }

    /// A prepared statement for `sql` from the connection's cache, rewound, prepared and cached on
    /// first use. Its bindings are the caller's to set: binders clear them (see `QueryParameters`).
    ///
    /// When anything but the cache holds the cached statement (a caller of ``cachedStatement(query:)``, a loop
    /// over its rows, a decode further up the stack that fetches the same query again), a fresh uncached
    /// statement is returned instead: it is never rewound or rebound under its user.
    func cachedStatement(for sql: String) throws -> Statement {
        switch statementCache.unsharedStatement(for: sql) {
        case .statement(let statement):
            statement.reset()
            statement.strategies = strategies
            return statement
        case .inUse:
            return try prepare(query: sql)
        case .missing:
            let statement = try Statement(database: self, sql: sql, persistent: true)
            statementCache.insert(statement)
            return statement
        }
    }
}
