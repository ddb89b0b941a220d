/// Something that lends sessions for reads: `DatabasePool`, `DatabaseQueue` (SQLite) and `PostgresPool`. Code that
/// only reads takes `some DatabaseReader` and runs unchanged on each.
///
/// ```swift
/// func happyNotes(in db: some DatabaseReader) async throws -> [Note] {
///     try await db.read { session in try await session.fetchAll(Note.filter(Column("mood") == "happy")) }
/// }
/// ```
///
/// The words mean the same on every backend: **a `read` sees one consistent snapshot and refuses writes**; a
/// `stream` reads its rows a few at a time on one snapshot; a reader works as soon as it is created and ends with
/// ``close()``.
public protocol DatabaseReader<Session>: AnyObject, Sendable {
    /// What the block of a `read` or `write` gets: `Database` on SQLite, `PostgresSession` on PostgreSQL.
    associatedtype Session: DatabaseSession

    /// Runs `body` on a session in a transaction that sees one consistent snapshot, with writes refused.
    func read<Output: Sendable>(_ body: (Session) async throws -> Output) async throws -> Output

    /// The records `request` selects, read and decoded a few at a time on one connection and one snapshot, as the
    /// loop asks for them: **memory stays flat however many rows there are**, and **the connection goes back as soon
    /// as the loop ends** (see ``RowStream``).
    ///
    /// ```swift
    /// func export(from db: some DatabaseReader, to file: FileHandle) async throws {
    ///     for try await note in db.stream(Note.all().order(Column("id"))) {
    ///         file.write(Data((note.content + "\n").utf8))
    ///     }
    /// }
    /// ```
    func stream<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record>

    /// The rows of `sql` decoded as `T` (a `Decodable` type whose coding keys are columns, or a single value read
    /// from a one-column row), streamed as ``stream(_:)`` streams a request's records.
    func stream<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder) -> RowStream<T>

    /// An element after each commit that may have changed the database, from the moment of the call: what an
    /// observation (``DatabaseObservation``, from `observe`) waits for between two reads. The backend's side of
    /// observation.
    ///
    /// - Returns once listening has begun: a commit from then on is followed by an element.
    /// - An element comes once the commit is visible to a new `read`.
    /// - Only the commits that may change the tables the sequence follows count: every commit, until
    ///   ``CommitNotifications/follow(_:)`` narrows them to the tables a read depends on
    ///   (``observationRead(_:)``).
    /// - Commits made while no element is taken are **coalesced**: the consumer gets one element for all of them,
    ///   never a queue.
    /// - A transaction that rolls back, and a `read`, yield nothing.
    /// - The sequence finishes when the reader is closed, and stops listening when its consumer stops iterating.
    ///
    /// - Throws: ``DatabaseError`` when the backend cannot see commits now (a PostgreSQL server that cannot be
    ///   reached); an observation then throws it before its first read.
    func commitNotifications() async throws -> CommitNotifications

    /// Reads one result of an observation, and the tables it depends on: those whose commits may change it. By
    /// default a ``read(_:)`` that depends on every table. A backend tells which tables the read used (SQLite from the
    /// statements it ran, StrataPostgres from the tables PostgreSQL scanned), reads where every commit it announced is
    /// seen (StrataPostgres on the primary, never a lagging replica), and refuses a result it cannot follow
    /// (StrataPostgres throws when the read touched a table whose commits it is not told of).
    ///
    /// - Throws: What `fetch` throws; ``DatabaseError`` when the result cannot be observed.
    func observationRead<Output: Sendable>(_ fetch: (Session) async throws -> Output) async throws
        -> (value: Output, tables: TableScope)

    /// Closes the connections once the work asked for has finished: new work throws
    /// ``DatabaseError/Code/connectionClosed`` at once. Calling it again is safe.
    func close() async

    /// Whether ``close()`` has been called: from then on new work throws ``DatabaseError/Code/connectionClosed``.
    var isClosed: Bool { get }
}

extension DatabaseReader {
    /// ``read(_:)``, depending on every table: a backend whose every read sees every commit it announced, and that
    /// cannot tell which tables a read used, observes with plain reads.
    public func observationRead<Output: Sendable>(_ fetch: (Session) async throws -> Output) async throws
        -> (value: Output, tables: TableScope)
    {
        (try await read(fetch), .everything)
    }

    /// The rows of `sql` decoded as `T` with the default ``RowDecoder``, streamed.
    ///
    /// ```swift
    /// for try await note in db.stream(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id") {
    ///     print(note.content)
    /// }
    /// ```
    @_disfavoredOverload
    public func stream<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL) -> RowStream<T> {
        stream(type, sql, decoder: RowDecoder())
    }
}

/// Something that also lends the session that writes: `DatabasePool`, `DatabaseQueue` and `PostgresPool`. The
/// migrator and code that writes take `some DatabaseWriter`.
///
/// ```swift
/// func save(_ note: Note, in db: some DatabaseWriter) async throws -> Note {
///     try await db.write { session in
///         var note = note
///         try await session.insert(&note)
///         return note
///     }
/// }
/// ```
public protocol DatabaseWriter<Session>: DatabaseReader {
    /// Runs `body` in a transaction: **it commits when `body` returns and rolls back when `body` throws.** Writes run
    /// one at a time on SQLite; on PostgreSQL, as the server's isolation allows.
    @discardableResult
    func write<Output: Sendable>(_ body: (Session) async throws -> Output) async throws -> Output

    /// Runs `body` outside any transaction, each statement committing on its own: for `VACUUM`, some pragmas,
    /// `CREATE INDEX CONCURRENTLY`, and migrations that manage their own transactions. A transaction `body` leaves
    /// open is rolled back, and the call throws.
    @discardableResult
    func writeWithoutTransaction<Output: Sendable>(_ body: (Session) async throws -> Output) async throws -> Output
}
