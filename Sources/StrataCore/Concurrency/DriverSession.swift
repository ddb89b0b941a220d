/// The session side of the driver seam: a backend's session that adopts it supplies how it runs a statement
/// (``RenderedSQL`` in its ``dialect``) and what genuinely differs (records, writes of requests, joins, a nested
/// transaction), and takes from StrataCore the calls that are the same on every backend, written once here over
/// those statements:
///
/// - ``SQL`` values: `execute(_:)`, `fetchAll(_:_:decoder:)` and `fetchOne(_:_:decoder:)`, rendered in the dialect;
/// - requests: `fetchAll(_:)`, `fetchOne(_:)` and `fetchCount(_:)` of a `QueryRequest`, and its selection decoded
///   as another type, `fetchAll(_:_:decoder:)` and `fetchOne(_:_:decoder:)`;
/// - the `where:` family: `fetchAll(_:where:)`, `fetchOne(_:where:)` and `count(_:where:)` with an ``SQL``
///   condition, and their forms with a `String` condition and ``SQLArguments``, which read a `QueryRequest`
///   in primary key order;
/// - a batch insert, `insert(contentsOf:)`: all or none in a nested transaction, each model updated with its row
///   as written, and an error that names the element that failed;
/// - `insert(_:)` and `insert(contentsOf:)` of models that need not be written back;
/// - the writes of requests, `deleteAll(_:)`, `updateAll(_:_:)`, and `deleteAndFetchAll(_:)` and
///   `updateAndFetchAll(_:_:)`, which return the rows as they were deleted or as they are after the update.
///
/// `PostgresSession` is one. SQLite's `Database` is not: its synchronous methods, which the SQLite API keeps (and
/// which the `async` defaults here would shadow in an `async` function), satisfy the requirements, with SQLite's own
/// statement cache and batch insert.
public protocol DriverSession: DatabaseSession {
    /// How the backend spells SQL.
    associatedtype Dialect: SQLDialect

    /// The dialect every statement of the session is rendered in.
    var dialect: Dialect { get }

    /// Runs `statement`, rendered in ``dialect``, and returns how many rows it changed (its last statement, for a
    /// text of several): each of its statements in turn when it is a text of several that binds no values, as
    /// ``DatabaseSession/execute(_:)`` promises.
    @discardableResult
    func execute(_ statement: RenderedSQL) async throws -> Int

    /// What names each row of `type`'s table for an `UPDATE` or `DELETE` whose own `WHERE` cannot choose its rows (a
    /// request with joins, an order or a limit): its primary key, or a row id the database keeps; nil when the table
    /// has neither. Read from the catalog at each call, so that a schema change cannot make it stale.
    func rowHandle<Record: Model>(of type: Record.Type) async throws -> RowHandle?

    /// The rows of `statement`, rendered in ``dialect``, each decoded as `T`, as `fetchAll(_:_:decoder:)` of an
    /// ``SQL`` value decodes them.
    func fetchAll<T: Decodable>(_ type: T.Type, _ statement: RenderedSQL, decoder: RowDecoder) async throws -> [T]

    /// The first row of `statement`, rendered in ``dialect``, decoded as `T`; nil when there is none, or when it is
    /// one NULL that a scalar `T` cannot hold.
    func fetchOne<T: Decodable>(_ type: T.Type, _ statement: RenderedSQL, decoder: RowDecoder) async throws -> T?
}

extension DriverSession {
    /// Runs `sql`, its interpolated values bound.
    ///
    /// ```swift
    /// try await db.execute("UPDATE note SET mood = \(mood) WHERE id = \(id)")
    /// ```
    public func execute(_ sql: SQL) async throws {
        try await execute(try sql.rendered(for: dialect))
    }

    /// Every row of `sql` decoded as `T`; a one-column row decodes as a scalar (`Int`, `String`, `Date`...).
    ///
    /// ```swift
    /// let notes = try await db.fetchAll(Note.self, "SELECT * FROM note WHERE mood = \(mood)")
    /// ```
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        async throws -> [T]
    {
        try await fetchAll(type, try sql.rendered(for: dialect), decoder: decoder)
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
        try await fetchOne(type, try sql.rendered(for: dialect), decoder: decoder)
    }

    /// Every row of `request`, decoded as its model.
    ///
    /// ```swift
    /// let happy = try await db.fetchAll(Note.filter(Column("mood") == "happy").order(Column("id")).limit(10))
    /// ```
    public func fetchAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> [Record] {
        try await fetchAll(Record.self, try request.rendered(for: dialect), decoder: RowDecoder())
    }

    /// The first row of `request` decoded as its model, or nil.
    public func fetchOne<Record: Model>(_ request: QueryRequest<Record>) async throws -> Record? {
        try await fetchOne(Record.self, try request.rendered(for: dialect), decoder: RowDecoder())
    }

    /// The number of rows `request` returns.
    ///
    /// ```swift
    /// let happy = try await db.fetchCount(Note.filter(Column("mood") == "happy"))
    /// ```
    public func fetchCount<Record: Model>(_ request: QueryRequest<Record>) async throws -> Int {
        let (sql, count, failure) = request.renderCount(dialect: dialect)
        if let failure { throw failure.withSQL(sql) }
        return try await fetchOne(Int.self, count, decoder: RowDecoder()) ?? 0
    }

    /// Every row of `request` decoded as `T`, which reads the request's selection by its keys (name a selected
    /// expression with `forKey(_:)`), or as a scalar for a one-column selection.
    ///
    /// ```swift
    /// struct Stats: Decodable { var newest: Int64; var total: Int }
    /// let stats = try await db.fetchAll(Stats.self, Note.select(max(Column("id")).forKey("newest"),
    ///                                                           count(Column("id")).forKey("total")))
    /// ```
    public func fetchAll<T: Decodable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) async throws -> [T] {
        try await fetchAll(type, try request.rendered(for: dialect), decoder: decoder)
    }

    /// The first row of `request` decoded as `T`, or nil.
    ///
    /// ```swift
    /// let newest = try await db.fetchOne(Int64.self, Note.select(max(Column("id"))))
    /// ```
    public func fetchOne<T: Decodable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) async throws -> T? {
        try await fetchOne(type, try request.rendered(for: dialect), decoder: decoder)
    }

    /// The records of `T` matching an SQL condition written with interpolation, in primary key order: each
    /// interpolated value is bound, never spliced (see ``SQL``).
    ///
    /// ```swift
    /// let mine = try await db.fetchAll(Note.self, where: "author_id = \(authorID)")
    /// ```
    public func fetchAll<T: Model>(_ type: T.Type, where condition: SQL) async throws -> [T] {
        try await fetchAll(QueryRequest<T>.matching(condition))
    }

    /// The first record of `T` matching an SQL condition written with interpolation, in primary key order, or nil.
    public func fetchOne<T: Model>(_ type: T.Type, where condition: SQL) async throws -> T? {
        try await fetchOne(QueryRequest<T>.matching(condition))
    }

    /// The number of rows of `T` matching an SQL condition written with interpolation.
    public func count<T: Model>(_ type: T.Type, where condition: SQL) async throws -> Int {
        try await fetchCount(T.filter(condition))
    }

    /// The records of `T` matching an SQL condition, in primary key order. A condition written as a literal, with or
    /// without interpolation, is ``SQL`` (the form above): this form takes a `String` only with `parameters`, or from
    /// a variable.
    ///
    /// ```swift
    /// let recent = try await db.fetchAll(Note.self, where: "created_at > :since", parameters: ["since": yesterday])
    /// ```
    ///
    /// Values go in `parameters` (`:name` with named values, or `?` with positional ones), never into the
    /// condition's text.
    @_disfavoredOverload
    public func fetchAll<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments = [:])
        async throws -> [T]
    {
        try await fetchAll(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    /// The first record of `T` matching an SQL condition, in primary key order, or nil.
    @_disfavoredOverload
    public func fetchOne<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments = [:])
        async throws -> T?
    {
        try await fetchOne(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    /// The number of rows of `T`, matching an SQL condition when there is one.
    ///
    /// ```swift
    /// let happy = try await db.count(Note.self, where: "mood = :mood", parameters: ["mood": "happy"])
    /// ```
    @_disfavoredOverload
    public func count<T: Model>(_ type: T.Type, where condition: String? = nil, parameters: SQLArguments = [:])
        async throws -> Int
    {
        try await fetchCount(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    /// Inserts `model`, leaving a nil primary key to the column's default. Use `insert(_:)` with `inout` to read the
    /// row as written back.
    public func insert<T: Model>(_ model: T) async throws {
        var written = model
        try await insert(&written)
    }

    /// Inserts every model of `models`, in order, all or none, and updates each with its row as written: a model
    /// with a nil key gets the key the database assigned (and what defaults and triggers stored).
    ///
    /// ```swift
    /// var notes = [Note(id: nil, content: "first"), Note(id: nil, content: "second")]
    /// try await db.insert(contentsOf: &notes)
    /// ```
    ///
    /// - **A batch is all or nothing**: it runs in a nested transaction (a savepoint), which rolls back on its own
    ///   when one row fails; `models` is then unchanged, and the enclosing `write` goes on.
    /// - **A failed batch names the element that failed**, by its index: ``DatabaseError/elementIndex``, or the
    ///   first key of an `EncodingError`'s or `DecodingError`'s coding path.
    /// - An empty array is a no-op: no statement runs.
    public func insert<T: Model>(contentsOf models: inout [T]) async throws {
        guard !models.isEmpty else { return }
        var written = models
        try await transaction { session in
            for index in written.indices {
                do {
                    try await session.insert(&written[index])
                } catch {
                    throw BatchInsertFailure.locate(error, atElement: index)
                }
            }
        }
        models = written
    }

    /// Inserts every model of `models`, in order, all or none, as `insert(contentsOf:)` of an array does, for a
    /// sequence whose models need not be written back.
    public func insert<T: Model>(contentsOf models: some Sequence<T>) async throws {
        var array = Array(models)
        try await insert(contentsOf: &array)
    }
}
