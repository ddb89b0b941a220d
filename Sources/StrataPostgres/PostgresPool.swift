public import Logging
internal import PostgresNIO
public import ServiceLifecycle
internal import StrataCore

/// Strata's PostgreSQL database: the same `Model` types and `QueryRequest`s as on SQLite, run on a pool of
/// connections through postgres-nio's `PostgresClient`.
///
/// ```swift
/// let pool = try PostgresPool(url: "postgres://app@db.internal:5432/app", connections: 16)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await pool.run() }     // or pass the pool to a ServiceGroup
///     try await pool.write { db in try await db.insert(&note) }
///     let happy = try await pool.read { db in try await db.fetchAll(Note.filter(Column("mood") == "happy")) }
///     group.cancelAll()
/// }
/// ```
///
/// - **The pool runs while it is used.** postgres-nio's client does its work in ``run()``: run the pool in a task
///   group or a ServiceLifecycle `ServiceGroup` for as long as it is used. A `read` or `write` waits for it.
/// - **A write is a transaction.** ``write(_:)`` runs its body between `BEGIN` and `COMMIT` and returns the
///   body's value; when the body throws, it rolls back and rethrows: nothing the body wrote stays.
/// - **Reads go to the replicas.** With `replicas`, ``read(_:)`` runs on them in turn; writes always run on the
///   primary. A replica may lag behind the primary: a read right after a write may not see it.
/// - **Errors say what failed.** A statement PostgreSQL rejects throws ``PostgresError`` with its SQLSTATE, message
///   and SQL; a server that cannot be reached, a role it refuses and a database it lacks each throw a one-line
///   ``PostgresError`` (the first use of each server opens one extra connection to find out, without waiting for
///   the pool's retries).
public final class PostgresPool: Sendable, Service {
    /// The server that runs every write.
    private let primary: PostgresEndpointClient
    /// The servers that run the reads, in turn; empty when reads run on the primary.
    private let replicas: [PostgresEndpointClient]
    /// The index of the replica for the next read.
    private let nextReplica = LockedValue(0)
    /// Whether ``run()`` was called.
    private let isRunning = LockedValue(false)
    /// Where postgres-nio logs.
    private let logger: Logger

    /// A pool of at most `connections` connections to the server at `url`, and as many to each of `replicas`.
    ///
    /// `url` is `postgres://user:password@host:port/database`, read as libpq reads it: an IPv6 host in brackets, a
    /// Unix socket's folder (`?host=/var/run/postgresql`), libpq's `sslmode`s (`prefer` by default) and
    /// `sslrootcert`. No connection opens until the pool runs and is used.
    ///
    /// - Parameters:
    ///   - url: The primary server, which runs every write.
    ///   - connections: The most connections open to each server at once.
    ///   - replicas: Read replicas, which run the reads in turn; none by default.
    ///   - logger: Where postgres-nio logs the pool's background work (connections opening and closing); nothing by
    ///     default. Its trace level is not passed on: there postgres-nio writes every message of the wire protocol,
    ///     bound values, rows and PostgreSQL's detail lines included, which may be private data.
    /// - Throws: ``PostgresError/Code/invalidURL`` for a URL that cannot be used, naming it without its password;
    ///   ``DatabaseError/Code/invalidArgument`` for fewer than one connection.
    public init(
        url: String, connections: Int = 16, replicas: [String] = [],
        logger: Logger = Logger(label: "strata.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        guard connections >= 1 else {
            throw DatabaseError(
                code: .invalidArgument, message: "a PostgresPool needs at least one connection, not \(connections)")
        }
        var logger = logger
        logger.logLevel = max(logger.logLevel, .debug)
        self.logger = logger
        primary = try PostgresEndpointClient(url: url, connections: connections, logger: logger)
        self.replicas = try replicas.map {
            try PostgresEndpointClient(url: $0, connections: connections, logger: logger)
        }
    }

    /// Runs the pool's clients until the task is cancelled or, in a `ServiceGroup`, until graceful shutdown; then
    /// closes every connection. Call it once.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the pool already ran.
    public func run() async throws {
        let alreadyRan = isRunning.withLock { running in
            defer { running = true }
            return running
        }
        guard !alreadyRan else {
            throw DatabaseError(code: .invalidArgument, message: "PostgresPool.run() was called twice: run a pool once")
        }
        await withDiscardingTaskGroup { group in
            for client in [primary] + replicas {
                group.addTask { await client.client.run() }
            }
        }
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
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after the rollback), or ``PostgresError`` when the transaction cannot begin or
    ///   commit.
    public func write<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        try await primary.withSession(logger: logger) { session in
            try await session.run(sql: "BEGIN")
            let result: Result
            do {
                result = try await body(session)
            } catch {
                // The body's error is the one to report; a failed rollback closes the connection, which postgres-nio
                // then drops from the pool.
                try? await session.run(sql: "ROLLBACK")
                throw error
            }
            try await session.run(sql: "COMMIT")
            return result
        }
    }

    /// Runs `body` on a replica when the pool has any (each read on the next one), otherwise on the primary, in
    /// autocommit mode: each statement sees the data committed when it starts.
    ///
    /// ```swift
    /// let notes = try await pool.read { db in try await db.fetchAll(Note.order(Column("id"))) }
    /// ```
    public func read<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        let client: PostgresEndpointClient
        if replicas.isEmpty {
            client = primary
        } else {
            let index = nextReplica.withLock { next in
                defer { next = (next + 1) % replicas.count }
                return next
            }
            client = replicas[index]
        }
        return try await client.withSession(logger: logger, body)
    }

    /// Runs `body` on a connection to the primary in autocommit mode, outside any transaction: for the migrations
    /// whose statements cannot run in one (`-- strata:no-transaction`).
    func writeWithoutTransaction<Result: Sendable>(
        _ body: (PostgresSession) async throws -> Result
    ) async throws -> Result {
        try await primary.withSession(logger: logger, body)
    }
}

/// One server of a pool: its address, postgres-nio's client for it, and whether it was reached once.
final class PostgresEndpointClient: Sendable {
    /// The server's address.
    let endpoint: PostgresEndpoint
    /// postgres-nio's pool of connections to the server.
    let client: PostgresClient
    /// Whether a connection to the server opened once: until then, each use first checks that it can.
    private let isChecked = LockedValue(false)

    /// The client of the server at `url`, with at most `connections` connections.
    init(url: String, connections: Int, logger: Logger) throws {
        endpoint = try PostgresEndpoint(url: url)
        client = PostgresClient(
            configuration: endpoint.clientConfiguration(connections: connections), backgroundLogger: logger)
    }

    /// Runs `body` with a session on a connection of the pool.
    func withSession<Result: Sendable>(logger: Logger, _ body: (PostgresSession) async throws -> Result)
        async throws -> Result
    {
        if !isChecked.withLock({ $0 }) {
            try await check(logger: logger)
        }
        do {
            return try await client.withConnection { connection in
                let session = PostgresSession(connection: connection, endpoint: endpoint, logger: logger)
                defer { session.end() }
                do {
                    return try await body(session)
                } catch {
                    throw BodyError(error: error)
                }
            }
        } catch let error as BodyError {
            throw error.error
        } catch {
            // postgres-nio's pool gives up on a server it cannot reach after a minute of retries, with an error of
            // its own that does not say why: one more connection attempt tells, when it fails.
            if !(error is PSQLError), !(error is CancellationError) {
                try await check(logger: logger)
            }
            throw PostgresError.translating(error, sql: nil, endpoint: endpoint)
        }
    }

    /// Opens and closes one connection, so that a server that cannot be reached, a role it refuses or a database
    /// it lacks throws its own clear error at once, instead of the pool retrying for a minute.
    private func check(logger: Logger) async throws {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try endpoint.connectionConfiguration(), id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw PostgresError.translating(error, sql: nil, endpoint: endpoint)
        }
        isChecked.withLock { $0 = true }
    }
}

/// An error of a session's body, carried through postgres-nio's `withConnection` untouched.
private struct BodyError: Error {
    /// The error the body threw.
    let error: any Error
}
