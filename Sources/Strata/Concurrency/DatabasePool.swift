/// A database file shared by the tasks of a server: one writer connection and several readers, in WAL mode.
///
/// ```swift
/// let pool = try DatabasePool(path: "app.sqlite", readers: 4)
/// try await pool.write { db in try db.insert(&note) }
/// let notes = try await pool.read { db in try db.fetchAll(Note.self) }
/// await pool.close()
/// ```
///
/// - **Writes are serialized.** Each ``write(_:)-4dln0`` runs on the one writer connection in an immediate transaction: it
///   commits when the block returns and rolls back when the block throws.
/// - **Reads run in parallel** with each other and with the writer, each on one of the reader connections and in
///   its own transaction, so **a read sees one consistent snapshot**: what was committed when it began, never a
///   write in progress.
/// - **Reader connections refuse writes**: they are opened read-only.
/// - SQLite calls block, so each connection runs them on its own serial dispatch queue, never on Swift's
///   cooperative thread pool; a task waiting for a connection is suspended and holds no thread.
/// - When every connection of a kind is busy, tasks wait their turn in the order they asked. A task cancelled while
///   it waits throws `CancellationError`; a block that has started runs to completion.
/// - `SQLITE_BUSY` from another process is absorbed by each connection's ``Database/busyTimeout``.
/// - **No write waits for a checkpoint.** SQLite copies the WAL back into the database file (a checkpoint) once it
///   has grown past `PRAGMA wal_autocheckpoint` pages (1000 by default); the pool runs that checkpoint on a
///   connection of its own, in the background, instead of inside the commit that crossed the threshold. Set
///   `wal_autocheckpoint` on the writer in `configure` to change the threshold; 0 turns checkpoints off, as in SQLite.
///
/// The blocks are ordinary closures: they may read and change the caller's local variables, and the caller is
/// suspended until the block has returned. Do not let the `Database`, or a `Statement` or `Row` made from it, escape
/// the block: return values instead.
///
/// See https://www.sqlite.org/wal.html
public final class DatabasePool: Sendable {
    /// The path of the database file.
    public let path: String
    /// The number of reader connections, which is how many reads can run at once.
    public let readerCount: Int
    /// What the pool reports (see `DatabaseObservability`).
    public let observability: DatabaseObservability

    let writer: ConnectionPool
    let readers: ConnectionPool
    /// Checkpoints the WAL off the writer's path; nil when `configure` turned checkpoints off.
    private let checkpointer: Checkpointer?
    /// Hears of the writer's commits and other processes', for observations (see ``commitNotifications()``).
    private let commits: ReaderCommits

    /// Opens the database file at `path`, creating it when missing, with one writer and `readers` reader
    /// connections, and switches it to WAL mode.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite", readers: 8) { db in
    ///     db.busyTimeout = 10
    ///     db.dateStrategy = .integer
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: A database file. An in-memory database cannot be shared between connections: use
    ///     ``DatabaseQueue/init(configure:)`` for one.
    ///   - readers: How many reads can run at once; at least 1.
    ///   - synchronous: How long each commit waits for the disk, on the writer (and the connection that checkpoints
    ///     the WAL): `.full` survives a power loss, `.normal` only a crash of the process, and commits faster (see
    ///     ``SynchronousMode``). `configure` can still change it.
    ///   - observability: What the pool reports: its connections' statements (logs, spans, metrics), and each `read`
    ///     and `write` as a span with the pool's metrics (see `DatabaseObservability`). Nothing by default.
    ///   - otherProcessCheckInterval: How often the pool checks, while something observes it (`observe`), for commits
    ///     that other processes make to the file: the most an observation lags behind one. Commits through the pool
    ///     are seen at once. nil when no other process writes the file.
    ///   - configure: Runs once on each connection as it opens, writer first: set strategies, the busy timeout or
    ///     pragmas there. Reader connections are read-only, so a pragma that writes the file belongs on the writer
    ///     (use ``writeWithoutTransaction(_:)-18umu``). It runs again on the connections the pool opens to replace those
    ///     an I/O error broke, so set there what every connection needs.
    /// - Throws: `DatabaseError.Code.invalidArgument` for an in-memory path or fewer than one reader; a
    ///   `DatabaseError` when the file cannot be opened or kept in WAL mode; the error `configure` throws.
    public init(
        path: String,
        readers: Int = 4,
        synchronous: SynchronousMode = .full,
        observability: DatabaseObservability = DatabaseObservability(),
        otherProcessCheckInterval: Duration? = .milliseconds(100),
        configure: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        guard !Self.isInMemory(path) else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "a DatabasePool needs a database file: an in-memory database cannot be shared between "
                    + "connections; use DatabaseQueue() for an in-memory database")
        }
        guard readers >= 1 else {
            throw DatabaseError(
                code: .invalidArgument, message: "a DatabasePool needs at least one reader, not \(readers)")
        }
        // The writer opens first: it creates the file and switches it to WAL, which read-only readers cannot do.
        let writerDatabase = try Self.openWriter(
            path: path, synchronous: synchronous, observability: observability, configure: configure)
        // The connections an I/O error may have broken are renewed together, each opened as it was first (see
        // `SerialConnection` and `ConnectionFamily`).
        let family = ConnectionFamily()
        let broadcast = CommitBroadcast()
        let otherProcessCheck = otherProcessCheckInterval == nil ? nil : try DataVersionCheck(of: writerDatabase)
        let checkpointer = try Checkpointer.takingOver(from: writerDatabase, family: family)
        let reopenWriter: @Sendable () throws -> sending Database = {
            let database = try Self.openWriter(
                path: path, synchronous: synchronous, observability: observability, configure: configure)
            if let checkpointer {
                try database.connection.observeWAL(with: checkpointer)
            }
            return database
        }
        let reopenReader: @Sendable () throws -> sending Database = {
            try Self.openReader(path: path, observability: observability, configure: configure)
        }
        var readerConnections: [SerialConnection] = []
        for index in 0..<readers {
            readerConnections.append(
                SerialConnection(
                    try reopenReader(), label: "strata.pool.reader.\(index)", reopen: reopenReader, family: family))
        }
        self.path = path
        self.readerCount = readers
        let writer = ConnectionPool(
            [
                SerialConnection(
                    writerDatabase, label: "strata.pool.writer", reopen: reopenWriter, family: family,
                    commits: broadcast, otherProcessCheck: otherProcessCheck)
            ],
            kind: "writer", observability: observability)
        self.writer = writer
        let lookOut = otherProcessCheckInterval.flatMap { interval in
            otherProcessCheck.map { OtherProcessCommits(writer: writer, check: $0, interval: interval) }
        }
        self.commits = ReaderCommits(broadcast: broadcast, lookOut: lookOut)
        self.readers = ConnectionPool(readerConnections, kind: "reader", observability: observability)
        self.observability = observability
        self.checkpointer = checkpointer
    }

    /// Runs `body` on the writer in a transaction: **it commits when `body` returns and rolls back when `body`
    /// throws.** Writes run one at a time, in the order they were asked for.
    ///
    /// ```swift
    /// var note = Note(content: "hello")
    /// try await pool.write { db in try db.insert(&note) }
    /// print(note.id)      // filled in by the insert
    /// ```
    ///
    /// The transaction is `IMMEDIATE`: it takes the write lock at once, so another process's writer makes it wait
    /// (up to the busy timeout) instead of failing halfway.
    ///
    /// - Returns: What `body` returns. It crosses threads, so it is `Sendable`: a `Row`, `Statement` or the
    ///   `Database` itself cannot leave the block, which keeps the connection on its own thread.
    /// - Throws: The error of `body`; a `DatabaseError` when the transaction cannot begin or commit;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled
    ///   while it waits for the writer.
    @discardableResult
    @concurrent
    public func write<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await writer.run("DatabasePool.write") { db in
            try db.transaction(.immediate) { db in try db.lent(body) }
        }
    }

    /// Runs `body` on the writer outside any transaction: for `VACUUM`, pragmas, and migrations that manage their
    /// own transactions.
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in try db.vacuum() }
    /// ```
    ///
    /// Each statement commits on its own. **A transaction `body` leaves open is rolled back**, and the call throws.
    ///
    /// - Throws: The error of `body`; `DatabaseError.Code.invalidArgument` when `body` left a transaction open;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled
    ///   while it waits for the writer.
    @discardableResult
    @concurrent
    public func writeWithoutTransaction<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await writer.run("DatabasePool.writeWithoutTransaction") { db in
            try db.withoutTransaction { db in try db.lent(body) }
        }
    }

    /// Runs a long write, such as an import or a backfill, in a few large transactions that **give way to the
    /// pool's other writes as soon as one waits**.
    ///
    /// ```swift
    /// var index = 0
    /// try await pool.pausableWrite { db, stop, isNewTransaction in
    ///     try db.insert(&items[index])
    ///     index += 1
    ///     stop = index == items.count
    /// }
    /// ```
    ///
    /// - **The body is called again and again, in a transaction, until it sets `stop`**; then the transaction
    ///   commits. Many calls share one transaction, which is what makes it nearly as fast as one big `write`.
    /// - **Between two calls, when another write of this pool waits, the transaction commits, the waiting work
    ///   runs, in order, and the next call begins a new transaction** with `isNewTransaction == true` (as does the
    ///   first call). Another write may have changed the database in between: re-read there what the body relies
    ///   on. The waiting work is woken through the pool's own list of waiting tasks, with no polling or sleep, and the
    ///   pausable write goes on before anything asked for after that.
    /// - `maxTransactionDuration` also commits after that long, for writers in other processes, which the pool
    ///   cannot see: **a writer in another process that began waiting during a transaction gets in after its
    ///   commit**, before the next one begins, as ``Database/pausableTransaction(maxDuration:_:)`` explains.
    /// - **If the body throws, the current transaction rolls back and the error is thrown**; what earlier
    ///   transactions committed stays committed. A commit that fails (a full disk, an I/O error, a deferred foreign
    ///   key) throws the same way.
    /// - **Cancelling the calling task stops the loop at the next call**: what is done so far is committed, then
    ///   `CancellationError` is thrown. A body that never sets `stop` runs until its task is cancelled.
    /// - ``close()`` waits for a pausable write as for any write.
    ///
    /// - Parameters:
    ///   - maxTransactionDuration: How long one transaction may run, when another process writes to the same file;
    ///     nil (the default) commits only for this pool's waiting work and at the end.
    ///   - body: One step: the connection, a flag to set when the work is done, and whether this call is the first
    ///     of a transaction.
    /// - Throws: The error of `body`; a `DatabaseError` when a transaction cannot begin or commit;
    ///   `DatabaseError.Code.invalidArgument` for a duration that is not positive;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled.
    @concurrent
    public func pausableWrite(
        maxTransactionDuration: Duration? = nil,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) async throws {
        try await writer.pausableWrite(maxTransactionDuration: maxTransactionDuration, body)
    }

    /// Runs `body` on a reader, in parallel with other reads and with the writer, on a consistent snapshot.
    ///
    /// ```swift
    /// let notes = try await pool.read { db in try db.fetchAll(Note.self) }
    /// ```
    ///
    /// **All the statements of one read see the same snapshot**: the database as it was committed when the read
    /// began, whatever the writer does meanwhile. **A read never waits for the writer.** Reader connections are
    /// read-only: a write in `body` throws `ResultCode.readOnly`.
    ///
    /// - Returns: What `body` returns. It crosses threads, so it is `Sendable`: a `Row`, `Statement` or the
    ///   `Database` itself cannot leave the block, which keeps the connection on its own thread.
    /// - Throws: The error of `body`; `DatabaseError.Code.connectionClosed` after ``close()``;
    ///   `CancellationError` when the task is cancelled while it waits for a reader.
    @concurrent
    public func read<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await readers.run("DatabasePool.read") { db in
            try db.readTransaction { db in try db.lent(body) }
        }
    }

    /// Closes the pool: **new work throws `DatabaseError.Code.connectionClosed` at once, work already asked for
    /// finishes, then every connection closes.**
    ///
    /// Calling it again, or from several tasks, is safe: each call returns once everything is closed.
    public func close() async {
        writer.beginClosing()
        readers.beginClosing()
        await commits.finish()
        // Readers and the checkpointer first: the writer, closing last, checkpoints the WAL into the database file
        // and removes it.
        await readers.closeConnections()
        await checkpointer?.close()
        await writer.closeConnections()
    }

    /// An element after each commit to the database file, once a new `read` sees it (see
    /// `DatabaseReader.commitNotifications()`): what an observation waits for. Anything the pool's writer commits (a
    /// `write`, each statement of a `writeWithoutTransaction`, a pausable write, a migration) at once; what other
    /// processes commit within the pool's `otherProcessCheckInterval`. Ends when the pool closes.
    public func commitNotifications() async throws -> CommitNotifications {
        try await commits.listen()
    }

    /// Reads one result of an observation, as `read` does, and the tables it read: those whose commits
    /// may change it. SQLite tells which tables each statement the read ran opens (see `Database.tablesRead(during:)`).
    public func observationRead<Output: Sendable>(_ fetch: (Database) async throws -> Output) async throws
        -> (value: Output, tables: TableScope)
    {
        try await read { db in try await db.tablesRead { try await fetch(db) } }
    }

    /// How many observations listen for the writer's commits: for tests that check an observation stops listening.
    package var commitListenerCount: Int {
        commits.listenerCount
    }

    /// How many tasks wait for the writer connection: for tests that need work queued before they go on.
    var writerWaitingCount: Int {
        writer.waitingCount
    }

    /// Whether ``close()`` has been called: from then on new work throws `DatabaseError.Code.connectionClosed`,
    /// though work asked for before may still be finishing.
    public var isClosed: Bool {
        writer.isClosed
    }

    /// Opens the writer connection: in WAL mode, with `synchronous`, the observability and `configure` applied.
    private static func openWriter(
        path: String, synchronous: SynchronousMode, observability: DatabaseObservability,
        configure: (@Sendable (Database) throws -> Void)?
    ) throws -> sending Database {
        let database = try Database(path: path)
        let journalMode = try database.journalMode
        guard journalMode == .wal else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "a DatabasePool needs WAL mode, and the database at \(path) stays in \(journalMode) mode")
        }
        // A first read in WAL mode opens the WAL, so that the writer, closing last, checkpoints and removes it even
        // when the pool never wrote.
        try database.execute(query: "SELECT count(*) FROM sqlite_schema")
        try database.setSynchronous(synchronous)
        database.observability = observability
        try database.configure(with: configure)
        return database
    }

    /// Opens a read-only reader connection, with the observability and `configure` applied.
    private static func openReader(
        path: String, observability: DatabaseObservability, configure: (@Sendable (Database) throws -> Void)?
    ) throws -> sending Database {
        let database = try Database(path: path, readOnly: true)
        database.observability = observability
        try database.configure(with: configure)
        return database
    }

    static func isInMemory(_ path: String) -> Bool {
        path.isEmpty || path == ":memory:"
    }
}
