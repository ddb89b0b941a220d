internal import Logging
internal import PostgresNIO

/// One open connection of a ``PostgresConnectionPool``: postgres-nio's connection, the server process that serves
/// it (to cancel its statement), and when it went back to the pool.
///
/// **A statement is never written to a closed connection.** postgres-nio 1.33.2 waits forever for the answer of a
/// query written to a channel that already closed (the server ended the session while it was idle: a restart,
/// `pg_terminate_backend`, `idle_in_transaction_session_timeout`). Each statement here is written from the
/// connection's event loop right after checking that the channel is open, so that the check and the write cannot
/// be separated by the close; a statement in flight when the connection closes fails in postgres-nio.
final class PostgresPooledConnection: Sendable {
    /// postgres-nio's connection.
    let connection: PostgresConnection
    /// The server process of the connection (`pg_backend_pid()`), which a cancel request names.
    let backendPID: Int32
    /// Starts streams from the connection's event loop.
    private let streams: PostgresStreamStarter
    /// When the connection last went back to the pool.
    private let returned = LockedValue(ContinuousClock.now)

    /// `connection`, served by the server process `backendPID`.
    init(connection: PostgresConnection, backendPID: Int32) {
        self.connection = connection
        self.backendPID = backendPID
        streams = PostgresStreamStarter(connection: connection)
    }

    /// Opens a connection and reads its server process.
    ///
    /// - Throws: what postgres-nio throws when the connection cannot be opened.
    static func open(configuration: PostgresConnection.Configuration, id: Int, logger: Logger) async throws
        -> PostgresPooledConnection
    {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        do {
            let result = try await send(PostgresQuery(unsafeSQL: "SELECT pg_backend_pid()"), on: connection, logger)
                .get()
            guard let pid = try result.rows.first?.decode(Int32.self) else {
                throw PostgresConnectionClosedBeforeSending()
            }
            return PostgresPooledConnection(connection: connection, backendPID: pid)
        } catch {
            close(connection)
            throw error
        }
    }

    /// Whether the connection is still open.
    var isOpen: Bool { !connection.isClosed }

    /// Runs `query` and collects its rows, never writing it to a closed connection.
    func query(_ query: PostgresQuery, logger: Logger) -> EventLoopFuture<PostgresQueryResult> {
        Self.send(query, on: connection, logger)
    }

    /// Runs `query` and streams its rows, never writing it to a closed connection.
    func stream(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await streams.start(query, logger: logger)
    }

    /// Closes the connection; the connection object lives until the channel has closed (postgres-nio asserts that
    /// a connection is closed when it goes away).
    func close() {
        Self.close(connection)
    }

    /// Closes `connection`, keeping it alive until its channel has closed.
    static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Notes that the connection went back to the pool now.
    func markReturned(at now: ContinuousClock.Instant) {
        returned.withLock { $0 = now }
    }

    /// When the connection last went back to the pool.
    var returnedAt: ContinuousClock.Instant {
        returned.withLock { $0 }
    }

    /// Writes `query` from the event loop if the channel is still open.
    private static func send(_ query: PostgresQuery, on connection: PostgresConnection, _ logger: Logger)
        -> EventLoopFuture<PostgresQueryResult>
    {
        let eventLoop = connection.eventLoop
        return eventLoop.flatSubmit {
            // On the event loop, the channel cannot close between this check and the write below.
            guard !connection.isClosed else {
                return eventLoop.makeFailedFuture(PostgresConnectionClosedBeforeSending())
            }
            return connection.query(query, logger: logger)
        }
    }
}

/// Starts a stream on a connection from its event loop, where the check that the channel is open and postgres-nio's
/// write of the query happen without a gap (postgres-nio's `query` runs on its caller's executor).
private actor PostgresStreamStarter {
    /// The connection whose event loop runs the actor.
    let connection: PostgresConnection

    /// The connection's event loop, as the actor's executor.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        connection.eventLoop.executor.asUnownedSerialExecutor()
    }

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Sends `query` and returns its rows as they arrive.
    func start(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !connection.isClosed else { throw PostgresConnectionClosedBeforeSending() }
        return try await connection.query(query, logger: logger)
    }
}
