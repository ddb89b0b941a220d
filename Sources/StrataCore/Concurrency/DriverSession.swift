/// The session side of the driver seam: a backend's session that adopts it writes only what genuinely differs
/// (running SQL, requests and the record statements, a nested transaction) and takes from StrataCore the calls that
/// are the same on every backend, written once here:
///
/// - the `where:` family: `fetchAll(_:where:)`, `fetchOne(_:where:)` and `count(_:where:)` with an ``SQL``
///   condition, and their forms with a `String` condition and ``SQLArguments``, which read a `QueryRequest`
///   through the session's own request calls, in primary key order;
/// - a batch insert, `insert(contentsOf:)`: all or none in a nested transaction, each model updated with its row
///   as written, and an error that names the element that failed;
/// - `insert(_:)` and `insert(contentsOf:)` of models that need not be written back.
///
/// `PostgresSession` is one. SQLite's `Database` is not: its synchronous methods, which the SQLite API keeps (and
/// which the `async` defaults here would shadow in an `async` function), satisfy the requirements, with SQLite's own
/// batch insert (one prepared statement for every row).
public protocol DriverSession: DatabaseSession {}

extension DriverSession {
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
