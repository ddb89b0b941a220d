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
/// reader works as soon as it is created and ends with ``close()``.
public protocol DatabaseReader<Session>: AnyObject, Sendable {
    /// What the block of a `read` or `write` gets: `Database` on SQLite, `PostgresSession` on PostgreSQL.
    associatedtype Session: DatabaseSession

    /// Runs `body` on a session in a transaction that sees one consistent snapshot, with writes refused.
    func read<Output: Sendable>(_ body: (Session) async throws -> Output) async throws -> Output

    /// Closes the connections once the work asked for has finished: new work throws
    /// ``DatabaseError/Code/connectionClosed`` at once. Calling it again is safe.
    func close() async

    /// Whether ``close()`` has been called: from then on new work throws ``DatabaseError/Code/connectionClosed``.
    var isClosed: Bool { get }
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
