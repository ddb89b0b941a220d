internal import Logging
internal import PostgresNIO
public import StrataCore

/// One connection of a ``PostgresPool``, lent to the body of a `read` or `write`: the PostgreSQL counterpart of
/// Strata's `Database`, with async calls.
///
/// ```swift
/// try await pool.write { db in
///     try await db.execute(query: "UPDATE note SET mood = :mood WHERE id = :id", parameters: ["mood": "happy", "id": 1])
///     let moods = try await db.fetchAll(String.self, query: "SELECT DISTINCT mood FROM note ORDER BY mood")
/// }
/// ```
///
/// - **Values are never spliced into SQL.** Named parameters `:name` are sent as `$n`; the parameters are a
///   dictionary of storable values or an `Encodable` value whose coding keys name them, as on SQLite.
/// - **A session is used inside its body only.** It belongs to the pool once the body returns; a cursor read
///   after that throws.
/// - **A statement PostgreSQL rejects fails its transaction block** (the `write`, or a nested
///   ``transaction(_:)``), even when the body catches the error: the block's later statements throw
///   ``DatabaseError/Code/transactionAborted``, and the block rolls back and throws the first failure when the
///   body returns. Run a statement that may fail in a nested ``transaction(_:)``.
/// - **A cancelled task cancels its statement on the server**, and a cursor left early does not make the next
///   statement wait for the rest of its rows.
public struct PostgresSession: Sendable {
    /// The connection lent by the pool.
    let connection: PostgresPooledConnection
    /// The pool the connection goes back to, which also cancels its statements.
    let pool: PostgresConnectionPool
    /// Where postgres-nio logs the session's queries.
    let logger: Logger
    /// What the session has done so far: its transaction blocks, whether it changed the connection's session...
    let state = PostgresSessionState()

    /// A session on `connection`, open until ``end()``.
    init(connection: PostgresPooledConnection, pool: PostgresConnectionPool, logger: Logger) {
        self.connection = connection
        self.pool = pool
        self.logger = logger
    }

    /// The server, for errors.
    var endpoint: PostgresEndpoint { pool.endpoint }

    /// Throws when the session's body has returned.
    func checkOpen(sql: String) throws {
        guard state.isOpen else { throw PostgresSessionState.usedAfterEnd(sql: sql) }
    }

    // MARK: Execute

    /// Runs one statement, with parameters from an `Encodable` value: each coding key gives the `:key` parameter.
    /// Without parameters, a text of several statements runs them one after another, as on SQLite.
    ///
    /// ```swift
    /// try await db.execute(query: "CREATE TABLE foo (name text, age int8); CREATE INDEX foo_age ON foo (age)")
    /// try await db.execute(query: "INSERT INTO foo VALUES (:name, :age)", parameters: Foo(name: "Bar", age: 42))
    /// ```
    ///
    /// - Throws: ``DatabaseError`` when PostgreSQL rejects the statement; ``DatabaseError/Code/unknownParameter``
    ///   when the SQL names a parameter the value lacks.
    public func execute(query: String, parameters: (any Encodable)? = nil) async throws {
        if parameters == nil {
            try await run(script: query)
        } else {
            try await collect(try statement(query, PostgresParameters(parameters)))
        }
    }

    /// Runs one statement, with parameters from a dictionary of storable values: `["name": "Bar", "age": 42]`.
    public func execute(query: String, parameters: [String: (any DatabaseValueConvertible)?]) async throws {
        try await collect(try statement(query, PostgresParameters(parameters)))
    }

    // MARK: Fetch

    /// Every row of `query`.
    ///
    /// ```swift
    /// for row in try await db.fetchAll(query: "SELECT name, age FROM foo") {
    ///     let name: String = try row["name"]
    ///     let age: Int = try row.age
    /// }
    /// ```
    public func fetchAll(query: String, parameters: (any Encodable)? = nil) async throws -> [PostgresResultRow] {
        let result = try await collect(try statement(query, PostgresParameters(parameters)))
        guard let first = result.rows.first else { return [] }
        let columns = PostgresColumns(row: first)
        return result.rows.map { PostgresResultRow(row: $0, columns: columns) }
    }

    /// The first row of `query`, or nil when there is none.
    ///
    /// ```swift
    /// let row = try await db.fetchOne(query: "SELECT count(*) AS total, max(id) AS newest FROM note")
    /// let total: Int? = try row?["total"]
    /// ```
    public func fetchOne(query: String, parameters: (any Encodable)? = nil) async throws -> PostgresResultRow? {
        let first = try await firstRow(try statement(query, PostgresParameters(parameters)))
        return first.map { PostgresResultRow(row: $0, columns: PostgresColumns(row: $0)) }
    }

    /// Every row of `query` decoded as `T`; a one-column row decodes as a scalar (`Int`, `String`, `Date`...).
    ///
    /// ```swift
    /// let notes = try await db.fetchAll(Note.self, query: "SELECT * FROM note WHERE mood = :mood",
    ///                                   parameters: ["mood": "happy"])
    /// let names = try await db.fetchAll(String.self, query: "SELECT name FROM foo")
    /// ```
    public func fetchAll<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) async throws -> [T] {
        try await decodeAll(T.self, try statement(query, PostgresParameters(parameters)), decoder: decoder)
    }

    /// Every row of `query` decoded as `T`, with parameters from a dictionary of storable values.
    public func fetchAll<T: Decodable>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?],
        decoder: RowDecoder = RowDecoder()
    ) async throws -> [T] {
        try await decodeAll(T.self, try statement(query, PostgresParameters(parameters)), decoder: decoder)
    }

    /// The first row of `query` decoded as `T`, or nil when there is none.
    public func fetchOne<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) async throws -> T? {
        try await decodeFirst(T.self, try statement(query, PostgresParameters(parameters)), decoder: decoder)
    }

    /// The first row of `query` decoded as `T`, or nil, with parameters from a dictionary of storable values.
    public func fetchOne<T: Decodable>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?],
        decoder: RowDecoder = RowDecoder()
    ) async throws -> T? {
        try await decodeFirst(T.self, try statement(query, PostgresParameters(parameters)), decoder: decoder)
    }

    /// The rows of `query`, decoded as `T` one at a time as they arrive from the server.
    ///
    /// ```swift
    /// for try await note in try await db.fetchCursor(Note.self, query: "SELECT * FROM note") { ... }
    /// ```
    ///
    /// - Complexity: O(1) memory in the number of rows: postgres-nio asks the server for more as they are read.
    public func fetchCursor<T: Decodable>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) async throws -> PostgresCursor<T> {
        try await cursor(T.self, try statement(query, PostgresParameters(parameters)), decoder: decoder)
    }

    // MARK: Running statements

    /// `sql` with its named parameters numbered and their values in order.
    func statement(_ sql: String, _ parameters: PostgresParameters) throws -> PostgresStatement {
        if case .encodable(let value) = parameters {
            return try statement(sql, encoding: value)
        }
        let text = try PostgresStatementText(sql, positionalCount: 0, questionMarks: false)
        let named = try parameters.values()
        let values = try text.names.map { name in
            guard let value = named[name] else {
                throw DatabaseError(code: .unknownParameter, message: "no value for the parameter :\(name)", sql: sql)
            }
            return value
        }
        return PostgresStatement(sql: text.sql, values: values)
    }

    /// `sql` with its parameters bound from an `Encodable` value by StrataCore's parameter encoder: a struct or
    /// dictionary names them, a list gives `$1`, `$2`... in order, a single value the only one.
    private func statement<T: Encodable>(_ sql: String, encoding value: T) throws -> PostgresStatement {
        let positionalCount =
            TopLevelParameters(T.self) == .list ? (value as? any PositionalParameters)?.positionalValues.count ?? 0 : 0
        let text = try PostgresStatementText(sql, positionalCount: positionalCount, questionMarks: false)
        let values = try PostgresParameterEncoder().values(
            value, for: text, positionalCount: positionalCount, sql: sql)
        return PostgresStatement(sql: text.sql, values: values)
    }

    /// Runs each statement of `sql`, which has no parameters, one after another, as SQLite runs a text of several:
    /// those before a statement that fails stay run, unless a transaction undoes them.
    ///
    /// - Returns: How many rows the last statement changed.
    @discardableResult
    func run(script sql: String) async throws -> Int {
        var changes = 0
        for text in PostgresMigrationScript.statementTexts(of: sql) {
            changes = try await collect(try statement(text, .none)).changes
        }
        return changes
    }

    /// Runs SQL of the caller's without parameters (a migration file, or `strata query`'s text).
    func run(sql: String) async throws {
        try await collect(PostgresStatement(sql: sql, values: []))
    }
}

/// SQL to send and the value of each of its `$n`, in order.
struct PostgresStatement: Sendable {
    /// The SQL, with `$n` placeholders.
    let sql: String
    /// The value of each `$n`, in order.
    let values: [PostgresValue]
    /// Whether the SQL is Strata's own record SQL, which changes nothing but rows: no text of the caller's is in
    /// it, so the session needs no reset after it. Requests may hold SQL fragments of the caller's.
    let isRecordSQL: Bool

    /// `sql` with `values` for its `$n`; `isRecordSQL` for Strata's own record SQL.
    init(sql: String, values: [PostgresValue], isRecordSQL: Bool = false) {
        self.sql = sql
        self.values = values
        self.isRecordSQL = isRecordSQL
    }

    /// The query postgres-nio sends.
    func query() throws -> PostgresQuery {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            try value.append(to: &bindings)
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// The parameters of a fetch or execute: none, an `Encodable` value, or a dictionary of storable values.
enum PostgresParameters {
    /// No parameters.
    case none
    /// An Encodable value whose coding keys name the parameters.
    case encodable(any Encodable)
    /// Storable values by name.
    case values([String: (any DatabaseValueConvertible)?])

    /// An Encodable value's parameters, or none.
    init(_ parameters: (any Encodable)?) {
        self = parameters.map(PostgresParameters.encodable) ?? .none
    }

    /// A dictionary's parameters.
    init(_ values: [String: (any DatabaseValueConvertible)?]) {
        self = .values(values)
    }

    /// The values by name; names may carry their `:`, `@` or `$` prefix, as on SQLite.
    func values() throws -> [String: PostgresValue] {
        switch self {
        case .none:
            return [:]
        case .encodable(let value):
            // Bound by `statement(_:encoding:)`, which knows the statement's parameters.
            return try PostgresParameterEncoder().encode(value)
        case .values(let values):
            var result: [String: PostgresValue] = [:]
            for (name, value) in values {
                let bare = name.first.map { ":@$".contains($0) } == true ? String(name.dropFirst()) : name
                result[bare] = try value.map(PostgresValue.make(convertible:)) ?? .null
            }
            return result
        }
    }
}
