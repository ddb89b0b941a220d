/// What one connection can do inside the block of a `read` or a `write`, on every backend: Strata's `Database`
/// (SQLite) and `PostgresSession` (PostgreSQL) are sessions.
///
/// Code written against it runs unchanged on both:
///
/// ```swift
/// func archive(_ id: Int64, in session: some DatabaseSession) async throws -> Bool {
///     guard var note = try await session.find(Note.self, id: id) else { return false }
///     note.archivedAt = Date()
///     try await session.update(note)
///     return true
/// }
/// ```
///
/// - **Values are bound, never spliced**: an ``SQL`` value binds what it interpolates, and the records bind their
///   columns.
/// - **A statement the database rejects fails its transaction block**, even when the body catches its error: the
///   later statements of the block throw ``DatabaseError/Code/transactionAborted``, and the block rolls back and
///   throws the first failure when the body returns. Run a statement that may fail in a nested
///   ``transaction(_:)``: its failure rolls back that savepoint only.
/// - **A session belongs to its block**: it is not `Sendable` on every backend, and is not kept after the block.
///
/// SQLite's `Database` satisfies the requirements with its synchronous methods: on SQLite the same calls need no
/// `await` in synchronous code where the type is known to be `Database` (the blocks of a pool or queue). In an
/// `async` function Swift picks the `async` requirements for them too, so the calls take `await` there.
public protocol DatabaseSession {
    /// Runs `sql`. A text of several statements that binds no values runs them one after another (those before a
    /// statement that fails stay run, unless a transaction undoes them); one that binds values is refused with
    /// ``DatabaseError/Code/invalidArgument`` before any of it runs, as a fetch of several statements is.
    func execute(_ sql: SQL) async throws

    /// The rows of `sql`, each decoded as `T` (a `Decodable` type whose coding keys are columns, or a single value
    /// read from a one-column row).
    func fetchAll<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder) async throws -> [T]

    /// The first row of `sql` decoded as `T`, or nil when there is none.
    func fetchOne<T: Decodable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder) async throws -> T?

    /// The records `request` selects, in its order.
    func fetchAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> [Record]

    /// The first record `request` selects, or nil.
    func fetchOne<Record: Model>(_ request: QueryRequest<Record>) async throws -> Record?

    /// How many records `request` selects.
    func fetchCount<Record: Model>(_ request: QueryRequest<Record>) async throws -> Int

    /// Sets `assignments` on the rows `request` selects, and returns how many changed.
    @discardableResult
    func updateAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...) async throws
        -> Int

    /// Deletes the rows `request` selects, and returns how many.
    @discardableResult
    func deleteAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> Int

    /// Inserts `model` and updates it with the row as written: a generated key, defaults, what triggers set.
    func insert<T: Model>(_ model: inout T) async throws

    /// Inserts `model`.
    func insert<T: Model>(_ model: T) async throws

    /// Inserts each of `models` in order, in one savepoint (all or none), and updates each with its row as written.
    func insert<T: Model>(contentsOf models: inout [T]) async throws

    /// Updates the row of `model`'s primary key; throws ``DatabaseError/Code/recordNotFound`` when there is none.
    func update<T: Model>(_ model: T) async throws

    /// Inserts `model`, or updates the row of its primary key, and updates `model` with the row as written.
    func upsert<T: Model>(_ model: inout T) async throws

    /// Deletes the row of `model`'s primary key, and returns whether there was one.
    @discardableResult
    func delete<T: Model>(_ model: T) async throws -> Bool

    /// Deletes the row of `T` whose primary key is `id`, and returns whether there was one.
    @discardableResult
    func delete<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) async throws -> Bool

    /// The record of `T` whose primary key is `id`, or nil.
    func find<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) async throws -> T?

    /// Every record of `T`'s table.
    func fetchAll<T: Model>(_ type: T.Type) async throws -> [T]

    /// The records of `T` matching an SQL condition written with interpolation, in primary key order: each
    /// interpolated value is bound, never spliced (see ``SQL``). A literal condition is this `SQL`, with or without
    /// interpolation.
    ///
    /// ```swift
    /// let mine = try await session.fetchAll(Note.self, where: "author_id = \(authorID)")
    /// ```
    func fetchAll<T: Model>(_ type: T.Type, where condition: SQL) async throws -> [T]

    /// The first record of `T` matching an SQL condition written with interpolation, in primary key order, or nil.
    func fetchOne<T: Model>(_ type: T.Type, where condition: SQL) async throws -> T?

    /// The number of rows of `T` matching an SQL condition written with interpolation.
    func count<T: Model>(_ type: T.Type, where condition: SQL) async throws -> Int

    /// The records of `T` matching an SQL condition, in primary key order. Values go in `parameters` (`:name` with
    /// named values, or `?` with positional ones), never into the condition's text.
    ///
    /// ```swift
    /// let recent = try await session.fetchAll(Note.self, where: "created_at > :since", parameters: ["since": day])
    /// ```
    func fetchAll<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments) async throws -> [T]

    /// The first record of `T` matching an SQL condition, in primary key order, or nil.
    func fetchOne<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments) async throws -> T?

    /// The number of rows of `T`, matching an SQL condition when there is one.
    func count<T: Model>(_ type: T.Type, where condition: String?, parameters: SQLArguments) async throws -> Int

    /// Every row of a join request, as pairs of records, each reading its own table's columns even when both tables
    /// have a column of the same name (`id`).
    func fetchAll<First: Model, Second: Model>(_ request: JoinRequest<First, Second>) async throws
        -> [(First, Second)]

    /// Every row of a left join request: the second record is nil where no row matched.
    func fetchAll<First: Model, Second: Model>(_ request: LeftJoinRequest<First, Second>) async throws
        -> [(First, Second?)]

    /// Every row of a three-table join request, as triples of records.
    func fetchAll<First: Model, Second: Model, Third: Model>(_ request: JoinRequest3<First, Second, Third>)
        async throws -> [(First, Second, Third)]

    /// Every row of a join written as SQL, decoded into two records, each reading its own table's columns: a run of
    /// columns of one table is one record's, and a column name that repeats within a run starts the next, so that
    /// a self-join splits between its two aliases.
    ///
    /// ```swift
    /// let pairs = try await session.fetchAll(
    ///     Note.self, Tag.self, "SELECT note.*, tag.* FROM note JOIN tag ON tag.note_id = note.id WHERE mood = \(mood)")
    /// ```
    ///
    /// - Throws: ``DatabaseError/Code/unknownColumn`` when the row has no columns of a record's table.
    func fetchAll<First: Model, Second: Model>(_ first: First.Type, _ second: Second.Type, _ sql: SQL) async throws
        -> [(First, Second)]

    /// Every row of a join written as SQL, decoded into three records, each reading its own table's columns.
    func fetchAll<First: Model, Second: Model, Third: Model>(
        _ first: First.Type, _ second: Second.Type, _ third: Third.Type, _ sql: SQL
    ) async throws -> [(First, Second, Third)]

    /// Runs `body` in a nested transaction (a savepoint inside a `write`): **when `body` throws, what it wrote rolls
    /// back and the enclosing block goes on**; when it returns, its work joins the enclosing transaction.
    func transaction<Output: Sendable>(_ body: (Self) async throws -> Output) async throws -> Output
}

extension DatabaseSession {
    /// The rows of `sql`, each decoded as `T` with the default ``RowDecoder``.
    ///
    /// ```swift
    /// let notes = try await session.fetchAll(Note.self, "SELECT * FROM note WHERE mood = \(mood)")
    /// ```
    @_disfavoredOverload
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: SQL) async throws -> [T] {
        try await fetchAll(type, sql, decoder: RowDecoder())
    }

    /// Every row of a one-column `sql` as `T`, a storable type that is not `Decodable` (a
    /// ``DatabaseValueConvertible`` of your own): each value is read as the backend stores it, then converted.
    ///
    /// ```swift
    /// let prices = try await session.fetchAll(Cents.self, "SELECT price FROM item")
    /// ```
    ///
    /// - Throws: ``DatabaseError/Code/invalidValue`` when `T` refuses a value, its error underneath.
    @_disfavoredOverload
    public func fetchAll<T: DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) async throws -> [T] {
        try await fetchAll(DatabaseValue.self, sql, decoder: RowDecoder()).map { try Self.convert($0, to: T.self) }
    }

    /// Every row of a one-column `sql` as `T`, for types both `Decodable` and storable (`Int`, `String`...): read
    /// as the backend reads `Decodable` values.
    @_disfavoredOverload
    public func fetchAll<T: Decodable & DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) async throws -> [T] {
        try await fetchAll(type, sql, decoder: RowDecoder())
    }

    /// The first row of a one-column `sql` as `T`, a storable type that is not `Decodable`, or nil when there is
    /// none, or when its value is NULL and `T` cannot hold NULL.
    @_disfavoredOverload
    public func fetchOne<T: DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) async throws -> T? {
        guard let value = try await fetchOne(DatabaseValue.self, sql, decoder: RowDecoder()) else { return nil }
        if value == .null, (try? T(databaseValue: .null)) == nil { return nil }
        return try Self.convert(value, to: T.self)
    }

    /// The first row of a one-column `sql` as `T`, for types both `Decodable` and storable, or nil.
    @_disfavoredOverload
    public func fetchOne<T: Decodable & DatabaseValueConvertible>(_ type: T.Type, _ sql: SQL) async throws -> T? {
        try await fetchOne(type, sql, decoder: RowDecoder())
    }

    /// `value` converted to `T`; a conversion that throws an error of its own is an ``DatabaseError/Code/invalidValue``
    /// with that error underneath.
    private static func convert<T: DatabaseValueConvertible>(_ value: DatabaseValue, to type: T.Type) throws -> T {
        do {
            return try T(databaseValue: value)
        } catch {
            throw error as? DatabaseError ?? .failedConversion(error, reading: T.self, from: value)
        }
    }

    /// The first row of `sql` decoded as `T` with the default ``RowDecoder``, or nil when there is none.
    ///
    /// ```swift
    /// let count = try await session.fetchOne(Int.self, "SELECT count(*) FROM note") ?? 0
    /// ```
    @_disfavoredOverload
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: SQL) async throws -> T? {
        try await fetchOne(type, sql, decoder: RowDecoder())
    }

    /// The records of `T` matching an SQL condition without parameters, in primary key order.
    ///
    /// ```swift
    /// let archived = try await session.fetchAll(Note.self, where: "archived_at IS NOT NULL")
    /// ```
    @_disfavoredOverload
    public func fetchAll<T: Model>(_ type: T.Type, where condition: String) async throws -> [T] {
        try await fetchAll(type, where: condition, parameters: [:])
    }

    /// The first record of `T` matching an SQL condition without parameters, in primary key order, or nil.
    @_disfavoredOverload
    public func fetchOne<T: Model>(_ type: T.Type, where condition: String) async throws -> T? {
        try await fetchOne(type, where: condition, parameters: [:])
    }

    /// The number of rows of `T`, matching an SQL condition without parameters when there is one.
    ///
    /// ```swift
    /// let total = try await session.count(Note.self)
    /// ```
    @_disfavoredOverload
    public func count<T: Model>(_ type: T.Type, where condition: String? = nil) async throws -> Int {
        try await count(type, where: condition, parameters: [:])
    }

    /// Inserts `model`, or updates the row of its primary key, when the row as written is not needed.
    @_disfavoredOverload
    public func upsert<T: Model>(_ model: T) async throws {
        var written = model
        try await upsert(&written)
    }
}

extension QueryRequest {
    /// The rows of `Record` matching an SQL condition, in primary key order: what `fetchAll(_:where:parameters:)`
    /// and `fetchOne(_:where:parameters:)` read on every backend.
    package static func matching(_ condition: String, parameters: SQLArguments) -> QueryRequest<Record> {
        Record.filter(sql: condition, parameters: parameters).order(Column(Record.primaryKeyColumn))
    }

    /// The rows of `Record` matching an SQL condition written with interpolation, in primary key order: what
    /// `fetchAll(_:where:)` and `fetchOne(_:where:)` of ``SQL`` read on every backend.
    package static func matching(_ condition: SQL) -> QueryRequest<Record> {
        Record.filter(condition).order(Column(Record.primaryKeyColumn))
    }

    /// The rows of `Record`, matching an SQL condition when there is one: what `count(_:where:parameters:)` counts.
    package static func matching(_ condition: String?, parameters: SQLArguments) -> QueryRequest<Record> {
        condition.map { Record.filter(sql: $0, parameters: parameters) } ?? Record.all()
    }
}
