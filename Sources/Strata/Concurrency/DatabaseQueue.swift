/// One database connection shared by many tasks, one at a time: for in-memory databases, tests, and apps that do
/// not need parallel reads.
///
/// ```swift
/// let queue = try DatabaseQueue()                       // in-memory
/// try await queue.write { db in
///     try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT)")
/// }
/// let count = try await queue.read { db in
///     try db.fetchOne(Int.self, query: "SELECT count(*) FROM note")
/// }
/// await queue.close()
/// ```
///
/// - **Every call is serialized**: reads and writes run one at a time, in the order they were asked for.
/// - Each ``write(_:)-40hdv`` runs in a transaction: it commits when the block returns and rolls back when it throws.
/// - Each ``read(_:)-9aiw4`` runs in a transaction with writes refused (`PRAGMA query_only`).
/// - SQLite calls run on the connection's serial dispatch queue, never on Swift's cooperative thread pool; a task
///   waiting for its turn is suspended and holds no thread. A task cancelled while it waits throws
///   `CancellationError`; a block that has started runs to completion.
///
/// The blocks are ordinary closures: they may read and change the caller's local variables, and the caller is
/// suspended until the block has returned. Do not let the `Database`, or a `Statement` or `Row` made from it, escape
/// the block: return values instead. Use ``DatabasePool`` when reads should run in parallel.
public final class DatabaseQueue: Sendable {
    /// The path of the database file, or `":memory:"`.
    public let path: String
    /// What the queue reports (see `DatabaseObservability`).
    public let observability: DatabaseObservability

    let connection: ConnectionPool
    /// Hears of the connection's commits and other processes', for observations (see ``commitNotifications()``).
    private let commits: ReaderCommits

    /// Opens the database file at `path`, created if missing and switched to WAL mode, as ``Database/init(path:readOnly:busyTimeout:)``
    /// does.
    ///
    /// ```swift
    /// let queue = try DatabaseQueue(path: "app.sqlite") { db in db.busyTimeout = 10 }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file, or `":memory:"` for a private in-memory database.
    ///   - synchronous: How long each commit waits for the disk: `.full` survives a power loss, `.normal` only a
    ///     crash of the process, and commits faster (see ``SynchronousMode``). `configure` can still change it.
    ///   - observability: What the queue reports: its statements (logs, spans, metrics), and each `read` and `write`
    ///     as a span with the queue's metrics (see `DatabaseObservability`). Nothing by default.
    ///   - otherProcessCheckInterval: How often the queue checks, while something observes it (`observe`), for
    ///     commits that other processes make to the file: the most an observation lags behind one. Commits through the
    ///     queue are seen at once. nil when no other process writes the file; an in-memory database has none.
    ///   - configure: Runs once on the connection as it opens: set strategies, the busy timeout or pragmas there. It
    ///     runs again on a connection the queue opens to replace one an I/O error broke.
    /// - Throws: A `DatabaseError` when the file cannot be opened; the error `configure` throws.
    public init(
        path: String, synchronous: SynchronousMode = .full,
        observability: DatabaseObservability = DatabaseObservability(),
        otherProcessCheckInterval: Duration? = .milliseconds(100),
        configure: (@Sendable (Database) throws -> Void)? = nil
    ) throws {
        let open: @Sendable () throws -> sending Database = {
            let database = try Database(path: path)
            try database.setSynchronous(synchronous)
            database.observability = observability
            try database.configure(with: configure)
            return database
        }
        let database = try open()
        self.path = database.path
        // A connection an I/O error may have broken is replaced by one opened the same way (see `SerialConnection`),
        // except an in-memory database's: its data lives in that one connection, which no other process writes.
        let inMemory = DatabasePool.isInMemory(path)
        let broadcast = CommitBroadcast()
        let otherProcessCheck = inMemory || otherProcessCheckInterval == nil ? nil : try DataVersionCheck(of: database)
        let connection = ConnectionPool(
            [
                SerialConnection(
                    database, label: "strata.queue", reopen: inMemory ? nil : open, commits: broadcast,
                    otherProcessCheck: otherProcessCheck)
            ],
            kind: "queue", observability: observability)
        self.connection = connection
        let lookOut = otherProcessCheckInterval.flatMap { interval in
            otherProcessCheck.map { OtherProcessCommits(writer: connection, check: $0, interval: interval) }
        }
        self.commits = ReaderCommits(broadcast: broadcast, lookOut: lookOut)
        self.observability = observability
    }

    /// A queue over a connection the caller opened and configured (the strata tool opens a file read-only, with its
    /// busy timeout), which the queue closes; a connection an I/O error broke is not replaced.
    package init(opened database: consuming sending Database) {
        self.path = database.path
        let commits = ReaderCommits(lookOut: nil)
        self.commits = commits
        let observability = DatabaseObservability()
        self.connection = ConnectionPool(
            [SerialConnection(database, label: "strata.queue", commits: commits.broadcast)], kind: "queue",
            observability: observability)
        self.observability = observability
    }

    /// Opens a private in-memory database, gone when the queue closes.
    ///
    /// ```swift
    /// let queue = try DatabaseQueue()
    /// ```
    public convenience init(configure: (@Sendable (Database) throws -> Void)? = nil) throws {
        try self.init(path: ":memory:", configure: configure)
    }

    /// Runs `body` in a transaction: **it commits when `body` returns and rolls back when `body` throws.**
    ///
    /// ```swift
    /// var noteID: Int64 = 0
    /// try await queue.write { db in
    ///     try db.execute(query: "INSERT INTO note (content) VALUES ('hello')")
    ///     noteID = try db.lastInsertedId
    /// }
    /// ```
    ///
    /// The transaction is `IMMEDIATE`: it takes the write lock at once, so another process's writer makes it wait
    /// (up to the busy timeout) instead of failing halfway.
    ///
    /// - Returns: What `body` returns. It crosses threads, so it is `Sendable`: a `Row`, `Statement` or the
    ///   `Database` itself cannot leave the block, which keeps the connection on its own thread.
    /// - Throws: The error of `body`; a `DatabaseError` when the transaction cannot begin or commit;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled
    ///   while it waits for its turn.
    @discardableResult
    @concurrent
    public func write<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await connection.run("DatabaseQueue.write") { db in
            try db.transaction(.immediate) { db in try db.lent(body) }
        }
    }

    /// Runs `body` outside any transaction: for `VACUUM`, pragmas, and migrations that manage their own
    /// transactions.
    ///
    /// ```swift
    /// try await queue.writeWithoutTransaction { db in try db.vacuum() }
    /// ```
    ///
    /// Each statement commits on its own. **A transaction `body` leaves open is rolled back**, and the call throws.
    ///
    /// - Throws: The error of `body`; `DatabaseError.Code.invalidArgument` when `body` left a transaction open;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled
    ///   while it waits for its turn.
    @discardableResult
    @concurrent
    public func writeWithoutTransaction<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await connection.run("DatabaseQueue.writeWithoutTransaction") { db in
            try db.withoutTransaction { db in try db.lent(body) }
        }
    }

    /// Runs a long write, such as an import or a backfill, in a few large transactions that **give way to the
    /// queue's reads and other writes as soon as one waits**: on a queue, reads wait for the one connection too.
    ///
    /// ```swift
    /// var index = 0
    /// try await queue.pausableWrite { db, stop, isNewTransaction in
    ///     try db.insert(&items[index])
    ///     index += 1
    ///     stop = index == items.count
    /// }
    /// ```
    ///
    /// - **The body is called again and again, in a transaction, until it sets `stop`**; then the transaction
    ///   commits. Many calls share one transaction, which is what makes it nearly as fast as one big `write`.
    /// - **Between two calls, when a read or another write of this queue waits, the transaction commits, the waiting work
    ///   runs, in order, and the next call begins a new transaction** with `isNewTransaction == true` (as does the
    ///   first call). Another write may have changed the database in between: re-read there what the body relies
    ///   on. The waiting work is woken through the queue's own list of waiting tasks, with no polling or sleep, and the
    ///   pausable write goes on before anything asked for after that.
    /// - `maxTransactionDuration` also commits after that long, for writers in other processes, which the queue
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
    ///     nil (the default) commits only for this queue's waiting work and at the end.
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
        try await connection.pausableWrite(maxTransactionDuration: maxTransactionDuration, body)
    }

    /// Runs `body` in a transaction with writes refused: **all its statements see the same data, and a write in
    /// `body` throws `ResultCode.readOnly`**, as it would on a ``DatabasePool`` reader.
    ///
    /// ```swift
    /// let count = try await queue.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM note") }
    /// ```
    ///
    /// - Returns: What `body` returns. It crosses threads, so it is `Sendable`: a `Row`, `Statement` or the
    ///   `Database` itself cannot leave the block, which keeps the connection on its own thread.
    /// - Throws: The error of `body`; `DatabaseError.Code.connectionClosed` after ``close()``;
    ///   `CancellationError` when the task is cancelled while it waits for its turn.
    @concurrent
    public func read<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output {
        return try await connection.run("DatabaseQueue.read") { db in
            try db.queryOnlyTransaction { db in try db.lent(body) }
        }
    }

    /// How many tasks wait for the writer connection: for tests that need work queued before they go on.
    var writerWaitingCount: Int {
        connection.waitingCount
    }

    /// Whether ``close()`` has been called: from then on new work throws `DatabaseError.Code.connectionClosed`,
    /// though work asked for before may still be finishing.
    public var isClosed: Bool {
        connection.isClosed
    }

    /// Closes the queue: **new work throws `DatabaseError.Code.connectionClosed` at once, work already asked for
    /// finishes, then the connection closes.**
    ///
    /// Calling it again, or from several tasks, is safe: each call returns once the connection is closed.
    public func close() async {
        connection.beginClosing()
        await commits.finish()
        await connection.closeConnections()
    }

    /// An element after each commit to the database, once a new `read` sees it (see
    /// `DatabaseReader.commitNotifications()`): what an observation waits for. What the queue commits at once; what
    /// other processes commit to its file within the queue's `otherProcessCheckInterval`. Ends when the queue closes.
    public func commitNotifications() async throws -> CommitNotifications {
        try await commits.listen()
    }

    /// Reads one result of an observation, as `read` does, and the tables it read: those whose commits may change it.
    /// SQLite tells which tables each statement the read ran opens (see `Database.tablesRead(during:)`).
    public func observationRead<Output: Sendable>(_ fetch: (Database) async throws -> Output) async throws
        -> (value: Output, tables: TableScope)
    {
        try await read { db in try await db.tablesRead { try await fetch(db) } }
    }

    /// How many observations listen for the queue's commits: for tests that check an observation stops listening.
    package var commitListenerCount: Int {
        commits.listenerCount
    }
}
