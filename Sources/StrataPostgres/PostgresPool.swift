public import Logging
internal import PostgresNIO
public import ServiceLifecycle
public import StrataCore
internal import Tracing

/// Strata's PostgreSQL database: the same `Model` types and `QueryRequest`s as on SQLite, run on a pool of
/// connections through postgres-nio.
///
/// ```swift
/// let pool = try PostgresPool(url: "postgres://app@db.internal:5432/app", connections: 16)
/// try await pool.write { db in try await db.insert(&note) }
/// let happy = try await pool.read { db in try await db.fetchAll(Note.filter(Column("mood") == "happy")) }
/// await pool.close()
/// ```
///
/// - **The pool works as soon as it is created**, and ends with ``close()``. It is also a ServiceLifecycle
///   `Service`: in a `ServiceGroup`, ``run()`` closes it at graceful shutdown.
/// - **A write is a transaction.** ``write(_:)`` runs its body between `BEGIN` and `COMMIT` and returns the
///   body's value; when the body throws, it rolls back and rethrows: nothing the body wrote stays. **A statement
///   PostgreSQL rejects fails the write even when the body catches its error** (PostgreSQL aborts the
///   transaction): the write rolls back and throws that error when the body returns. Run a statement that may fail
///   in a nested ``PostgresSession/transaction(_:)``. **A write never returns unless PostgreSQL said `COMMIT`.**
/// - **A broken connection is never reported as a commit.** A connection that breaks before `COMMIT` throws
///   ``DatabaseError/Code/connectionLost`` (nothing committed); one that breaks while `COMMIT` runs throws
///   ``DatabaseError/Code/commitOutcomeUnknown`` (check before retrying). Nothing is retried for you; the pool
///   replaces the connection.
/// - **Reads go to the replicas.** With `replicas`, ``read(_:)`` runs on them in turn; writes always run on the
///   primary. A replica may lag behind the primary: a read right after a write may not see it.
/// - **A connection comes back as it was lent.** After a request that may have changed its session (`SET`,
///   `set_config`, `SET ROLE`, a temporary table, `LISTEN`, a session advisory lock, a migration), the
///   connection is reset with `DISCARD ALL` before the next request gets it. Settings of the URL's `options` stay.
/// - **Errors say what failed.** A statement PostgreSQL rejects throws ``DatabaseError`` with its SQLSTATE, message
///   and SQL; a server that cannot be reached, a role it refuses and a database it lacks each throw a one-line
///   ``DatabaseError`` at once, and the next request tries the server again.
/// - **A cancelled task cancels its statement** on the server (`pg_cancel_backend`), so that it ends at once and
///   the connection serves the next request.
public final class PostgresPool: DatabaseWriter, Service {
    /// The server that runs every write.
    private let primary: PostgresConnectionPool
    /// The servers that run the reads, in turn; empty when reads run on the primary.
    private let replicas: [PostgresConnectionPool]
    /// The index of the replica for the next read.
    private let nextReplica = LockedValue(0)
    /// What the pool's observations hear of commits: PostgreSQL's notifications, which a connection to the primary
    /// listens for while anything observes the pool.
    private let commits: ReaderCommits

    /// A pool of at most `connections` connections to the server at `url`, and as many to each of `replicas`.
    ///
    /// `url` is `postgres://user:password@host:port/database`, read as libpq reads it: an IPv6 host in brackets, a
    /// Unix socket's folder (`?host=/var/run/postgresql`), libpq's `sslmode`s (`prefer` by default) and
    /// `sslrootcert`. No connection opens until the first request; the pool is usable at once.
    ///
    /// - Parameters:
    ///   - url: The primary server, which runs every write.
    ///   - connections: The most connections open to each server at once.
    ///   - replicas: Read replicas, which run the reads in turn; none by default.
    ///   - logger: Where postgres-nio logs the connections' background work; nothing by default. Its trace level is
    ///     not passed on: there postgres-nio writes every message of the wire protocol, bound values, rows and
    ///     PostgreSQL's detail lines included, which may be private data.
    ///   - observability: What the pool reports: its statements (logs, spans, metrics), and each `read` and `write`
    ///     as a span with the pool's metrics, as on SQLite (see ``DatabaseObservability``). Nothing by default.
    /// - Throws: ``DatabaseError/Code/invalidURL`` for a URL that cannot be used, naming it without its password;
    ///   ``DatabaseError/Code/invalidArgument`` for fewer than one connection.
    ///
    /// ```swift
    /// var logger = Logger(label: "notes.db")
    /// logger.logLevel = .trace
    /// let pool = try PostgresPool(
    ///     url: "postgres://app@db.internal:5432/app",
    ///     observability: DatabaseObservability(logger: logger, tracing: true, metrics: true))
    /// ```
    public init(
        url: String, connections: Int = 16, replicas: [String] = [],
        logger: Logger = Logger(label: "strata.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        observability: DatabaseObservability = DatabaseObservability()
    ) throws {
        guard connections >= 1 else {
            throw DatabaseError(
                code: .invalidArgument, message: "a PostgresPool needs at least one connection, not \(connections)")
        }
        var logger = logger
        logger.logLevel = max(logger.logLevel, .debug)
        let primary = PostgresConnectionPool(
            endpoint: try PostgresEndpoint(url: url), maximum: connections, logger: logger,
            observability: observability, kind: "primary")
        self.primary = primary
        commits = ReaderCommits(lookOut: PostgresCommitListener(pool: primary))
        self.replicas = try replicas.map {
            PostgresConnectionPool(
                endpoint: try PostgresEndpoint(url: $0), maximum: connections, logger: logger,
                observability: observability, kind: "replica")
        }
        self.observability = observability
    }

    /// What the pool reports (see ``DatabaseObservability``).
    public let observability: DatabaseObservability

    /// Closes the pool: **new requests throw ``DatabaseError/Code/connectionClosed`` at once, requests asked for
    /// before finish, then every connection closes.** Calling it again, or from several tasks, is safe: each call
    /// returns once everything is closed.
    ///
    /// ```swift
    /// let pool = try PostgresPool(url: databaseURL)
    /// let count = try await pool.read { db in try await db.fetchCount(Note.all()) }
    /// await pool.close()
    /// ```
    public func close() async {
        await commits.finish()
        await withDiscardingTaskGroup { group in
            for pool in [primary] + replicas {
                group.addTask { await pool.close() }
            }
        }
    }

    /// An element after each commit, by any client, to a table with the notify trigger
    /// (``PostgresObservation``): what an observation (`observe`) waits for. Once anything listens, a connection of
    /// the pool's own to the primary runs `LISTEN`; it is opened again when it breaks, and a commit is announced then,
    /// so that what was committed meanwhile is read. It closes once nothing has listened for about five seconds.
    ///
    /// - Throws: ``DatabaseError`` when the primary cannot be reached.
    public func commitNotifications() async throws -> CommitNotifications {
        try await commits.listen()
    }

    /// Reads one result of an observation, and the tables whose commits may change it: on the primary, which the
    /// notifications come from, so that the read sees the commit announced (a replica may not have it yet).
    /// PostgreSQL's count of the scans of each table, before and after, tells which tables the read scanned: one
    /// without the notify trigger is refused.
    ///
    /// - Throws: What `fetch` throws; ``DatabaseError/Code/invalidArgument`` naming the tables read that have no
    ///   trigger (see ``PostgresObservation``).
    public func observationRead<Output: Sendable>(_ fetch: (PostgresSession) async throws -> Output) async throws
        -> (value: Output, tables: TableScope)
    {
        try await observed("PostgresPool.read", on: primary) {
            try await primary.withSession { session in
                try await session.transaction(readOnly: true) { session in
                    try await PostgresObservation.readFollowingTables(in: session, fetch)
                }
            }
        }
    }

    /// Whether ``close()`` has been called: from then on new requests throw ``DatabaseError/Code/connectionClosed``.
    public var isClosed: Bool {
        primary.isClosed
    }

    /// Waits until graceful shutdown in a `ServiceGroup`, or until the task is cancelled, then closes the pool
    /// (``close()``) and returns; returns at once when the pool is already closed.
    ///
    /// The pool does not need it to work: it is there for apps that run their services in a ServiceLifecycle
    /// `ServiceGroup`. List the pool before the services that use it, so that they stop first.
    ///
    /// ```swift
    /// let group = ServiceGroup(services: [pool, server], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// try await group.run()
    /// ```
    public func run() async throws {
        guard !isClosed else { return }
        // `gracefulShutdown()` returns on graceful shutdown and throws on cancellation: both end the wait. Outside a
        // service group it waits for cancellation alone.
        try? await gracefulShutdown()
        await close()
    }

    /// Runs `body` in a transaction on the primary: it commits when `body` returns and rolls back when it throws.
    ///
    /// ```swift
    /// let id = try await pool.write { db in
    ///     var note = Note(id: nil, content: "Hello")
    ///     try await db.insert(&note)
    ///     return note.id
    /// }
    /// ```
    ///
    /// - Returns: What `body` returns, once PostgreSQL committed.
    /// - Throws: What `body` throws (after the rollback); the first statement of the body PostgreSQL rejected,
    ///   when the body went on after it (after the rollback); ``DatabaseError`` when the transaction cannot
    ///   begin or commit: ``DatabaseError/Code/connectionLost`` (nothing committed),
    ///   ``DatabaseError/Code/commitOutcomeUnknown`` (the connection broke while `COMMIT` ran: it may have
    ///   committed), ``DatabaseError/Code/connectionClosed`` (the pool is closed).
    @discardableResult
    public func write<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        try await observed("PostgresPool.write", on: primary) {
            try await primary.withSession { session in try await session.transaction(body) }
        }
    }

    /// Runs `body` on a replica when the pool has any (each read on the next one), otherwise on the primary, **on one
    /// consistent snapshot, with writes refused**, as a read of a `DatabasePool` is on SQLite: in a
    /// `REPEATABLE READ READ ONLY` transaction, which it ends when `body` returns.
    ///
    /// ```swift
    /// let notes = try await pool.read { db in try await db.fetchAll(Note.order(Column("id"))) }
    /// ```
    ///
    /// All the statements of `body` see the data as committed when its first statement ran, whatever commits
    /// meanwhile. A write in it throws PostgreSQL's `25006` (read_only_sql_transaction). A connection that breaks,
    /// even while the transaction's `COMMIT` runs, throws ``DatabaseError/Code/connectionLost``: a read wrote nothing,
    /// and can run again.
    ///
    /// See https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ
    public func read<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        let pool = readPool()
        return try await observed("PostgresPool.read", on: pool) {
            try await pool.withSession { session in
                try await session.transaction(readOnly: true, body)
            }
        }
    }

    /// The connections the next read runs on: the next replica in turn, or the primary when there is none.
    func readPool() -> PostgresConnectionPool {
        guard !replicas.isEmpty else { return primary }
        let index = nextReplica.withLock { next in
            defer { next = (next + 1) % replicas.count }
            return next
        }
        return replicas[index]
    }

    /// Runs `body` as the span `operation`, whose children are the statements it runs, when the pool traces.
    private func observed<Result>(
        _ operation: String, on pool: PostgresConnectionPool, _ body: () async throws -> Result
    ) async throws -> Result {
        guard pool.instruments?.tracing == true else { return try await body() }
        return try await withSpan(operation, ofKind: .client) { span in
            span.attributes["db.system.name"] = "postgresql"
            return try await body()
        }
    }

    /// The error of a request to a closed pool.
    static func closedError(endpoint: PostgresEndpoint, sql: String?) -> DatabaseError {
        DatabaseError(code: .connectionClosed, message: "the PostgreSQL pool of \(endpoint) is closed", sql: sql)
    }

    /// Runs `body` on a connection to the primary in autocommit mode, outside any transaction: each statement commits
    /// on its own. For statements that cannot run in a transaction (`CREATE INDEX CONCURRENTLY`, `VACUUM`) and the
    /// migrations of them (`-- strata:no-transaction`).
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in try await db.execute("VACUUM note") }
    /// ```
    @discardableResult
    public func writeWithoutTransaction<Result: Sendable>(
        _ body: (PostgresSession) async throws -> Result
    ) async throws -> Result {
        try await observed("PostgresPool.writeWithoutTransaction", on: primary) { try await primary.withSession(body) }
    }
}
