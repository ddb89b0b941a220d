internal import Logging
internal import PostgresNIO
internal import StrataCore

/// The connections of a ``PostgresPool`` to one server: at most `maximum` open at once, lent one per `read` or
/// `write` and taken back after.
///
/// - **It works as soon as it exists.** A request takes an idle connection, or opens one in its own task when
///   fewer than `maximum` are open, or waits for one to come back. Nothing runs in the background.
/// - **A server that refuses connections fails the request at once**, with the reason the connect gave (connection
///   refused, a role it refuses, a database it lacks); the next request tries again, so a server that is back is
///   used at once.
/// - **A failed connect never fails a request the open connections can serve.** When opening fails while other
///   connections are open (a role's `CONNECTION LIMIT`, the server's `max_connections`), the request waits for one
///   of them instead, and the pool stops opening new ones for a moment.
/// - **A connection comes back as it was lent.** After a session that may have changed it (see
///   ``PostgresStatementEffects``), `DISCARD ALL` resets it; a connection that broke or could not be reset is
///   closed instead.
final class PostgresConnectionPool: Sendable {
    /// The server.
    let endpoint: PostgresEndpoint
    /// Where postgres-nio logs.
    let logger: Logger
    /// The most connections open at once.
    private let maximum: Int
    /// The pool's bookkeeping.
    private let state: LockedValue<State>
    /// The configuration of each connection, made once (a TLS context is costly to make).
    private let configuration: LockedValue<PostgresConnection.Configuration?> = LockedValue(nil)
    /// What reports the sessions' statements; nil when the pool's observability asks for nothing.
    let observer: PostgresObserver?
    /// The spans and metrics of the pool's work; nil when the observability asks for neither.
    let instruments: PostgresPoolInstruments?

    /// How long a connection stays idle before the pool closes it.
    static let idleTimeout = Duration.seconds(60)
    /// How long the pool opens no connection after opening one failed while others were open.
    static let openPause = Duration.seconds(1)
    /// How many rows of an abandoned result are read and dropped before its statement is cancelled instead.
    static let abandonedRowsRead = 1_000
    /// How long a cancelled statement may go on before its connection is closed: long enough for a busy server to
    /// act on the cancel request (on 2 cores under the parallel test run, 3 s was not always).
    static let cancelGrace = TimeAmount.seconds(10)

    /// What a request that waits for a connection is given.
    enum Grant: Sendable {
        /// A connection another request gave back.
        case connection(PostgresPooledConnection)
        /// Room to open a connection of its own.
        case room
    }

    struct State: Sendable {
        /// Idle connections, the most recently returned last.
        var idle: [PostgresPooledConnection] = []
        /// Connections open or opening, idle or lent: at most `maximum`.
        var count = 0
        /// Connections open, idle or lent.
        var established = 0
        /// Connections being opened. A request whose open failed waits for one of these or of the open ones; with
        /// none, nothing would come back to it, and it throws.
        var opening = 0
        /// Requests waiting for a connection, first come first served.
        var waiters: [(id: Int, continuation: CheckedContinuation<Grant, any Error>)] = []
        /// Waiters whose task was cancelled before they queued.
        var cancelledWaiters: Set<Int> = []
        var nextWaiterID = 0
        var nextConnectionID = 1
        /// No connection opens before this instant: opening failed while others were open.
        var pausedUntil: ContinuousClock.Instant?
        /// Whether ``close()`` was called.
        var isClosed = false
        /// Calls of ``close()`` waiting for the last connection to close.
        var closing: [CheckedContinuation<Void, Never>] = []
    }

    /// The connections to the server at `endpoint`, at most `maximum` at once, reporting as `observability` asks,
    /// its metrics labelled with `kind` (`primary` or `replica`).
    init(
        endpoint: PostgresEndpoint, maximum: Int, logger: Logger,
        observability: DatabaseObservability = DatabaseObservability(), kind: String = "primary"
    ) {
        self.endpoint = endpoint
        self.maximum = maximum
        self.logger = logger
        observer = PostgresObserver(observability)
        instruments = PostgresPoolInstruments(kind: kind, observability)
        state = LockedValue(State())
    }

    deinit {
        // A pool dropped without close(): its idle connections close with it.
        for connection in state.withLock({ $0.idle }) {
            connection.close()
        }
    }

    // MARK: Sessions

    /// Runs `body` with a session on a connection of the pool, then resets the connection if the session may have
    /// changed it and gives it back.
    ///
    /// - Throws: What `body` throws; ``DatabaseError`` when no connection can be had (the server refuses, the pool
    ///   is closed); `CancellationError` when the task is cancelled while it waits for a connection.
    func withSession<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws -> Result {
        let session = try await beginSession()
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(session))
        } catch {
            result = .failure(error)
        }
        let reusable = await session.end()
        endSession(session, reusable: reusable)
        return try result.get()
    }

    /// A session on a leased connection, counted in the pool's metrics until ``endSession(_:reusable:)``.
    func beginSession() async throws -> PostgresSession {
        guard let instruments else {
            return PostgresSession(connection: try await lease(), pool: self, logger: logger)
        }
        let requested = ContinuousClock.now
        let connection = try await lease()
        instruments.connectionLent(waitingSince: requested)
        return PostgresSession(connection: connection, pool: self, logger: logger)
    }

    /// Gives back the connection of `session`, which has ended: reused when `reusable`, closed otherwise.
    func endSession(_ session: PostgresSession, reusable: Bool) {
        instruments?.connectionReturned()
        release(session.connection, reusable: reusable)
    }

    // MARK: Lending

    /// An open connection: an idle one, a new one, or the next one given back.
    func lease() async throws -> PostgresPooledConnection {
        while true {
            enum Step {
                case use(PostgresPooledConnection)
                case open
                case wait
            }
            let now = ContinuousClock.now
            var stale: [PostgresPooledConnection] = []
            let step = try state.withLock { state -> Step in
                guard !state.isClosed else { throw PostgresPool.closedError(endpoint: endpoint, sql: nil) }
                while let connection = state.idle.popLast() {
                    if connection.isOpen && now - connection.returnedAt < Self.idleTimeout {
                        return .use(connection)
                    }
                    state.count -= 1
                    state.established -= 1
                    stale.append(connection)
                }
                return state.takeRoomToOpen(now: now, maximum: maximum) ? .open : .wait
            }
            for connection in stale { connection.close() }
            switch step {
            case .use(let connection):
                return connection
            case .open:
                if let connection = try await openCounted() { return connection }
            case .wait:
                switch try await wait() {
                case .connection(let connection):
                    return connection
                case .room:
                    if let connection = try await openCounted() { return connection }
                }
            }
        }
    }

    /// Opens a connection already counted in `count`; nil when it failed while other connections are open, so
    /// that the request waits for one of them.
    private func openCounted() async throws -> PostgresPooledConnection? {
        do {
            let id = state.withLock { state in
                defer { state.nextConnectionID += 1 }
                state.opening += 1
                return state.nextConnectionID
            }
            let connection = try await PostgresPooledConnection.open(
                configuration: try connectionConfiguration(), id: id, logger: logger)
            state.withLock { state in
                state.opening -= 1
                state.established += 1
            }
            return connection
        } catch {
            let othersOpen = state.withLock { state -> Bool in
                state.count -= 1
                state.opening -= 1
                // Not `count`: it holds the rooms given to requests that wait after failing too, which would hand
                // the room to each other for ever while the server refuses.
                guard state.established + state.opening > 0, !(error is CancellationError) else { return false }
                state.pausedUntil = .now + Self.openPause
                return true
            }
            if othersOpen { return nil }
            // Room freed: a waiting request may try in turn, and get its own answer. Not while others are open or
            // opening: the waiters get those, and requests refused in turn would try again and again at once.
            grantRoomIfWaiting()
            throw DatabaseError.translating(error, sql: nil, endpoint: endpoint, phase: .connecting)
        }
    }

    /// Waits until a connection is given back or there is room to open one.
    private func wait() async throws -> Grant {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Queued {
                    case waiting
                    case answered(Result<Grant, any Error>)
                }
                // `lease` chose to wait under an earlier lock: what changed since (a connection given back, room
                // freed, the pool closed) is looked at again here, where the request joins the waiters, or a
                // release in between would find no waiter and leave this one waiting for good.
                let queued = state.withLock { state -> Queued in
                    if state.cancelledWaiters.remove(id) != nil { return .answered(.failure(CancellationError())) }
                    if state.isClosed {
                        return .answered(.failure(PostgresPool.closedError(endpoint: endpoint, sql: nil)))
                    }
                    if let index = state.idle.lastIndex(where: { $0.isOpen }) {
                        return .answered(.success(.connection(state.idle.remove(at: index))))
                    }
                    if state.takeRoomToOpen(now: .now, maximum: maximum) { return .answered(.success(.room)) }
                    state.waiters.append((id, continuation))
                    return .waiting
                }
                if case .answered(let result) = queued { continuation.resume(with: result) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Grant, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledWaiters.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Takes back `connection`: it goes to the first waiting request, or back to the idle connections; when it is
    /// not `reusable` (it broke, or could not be reset), it closes and its room goes to a waiting request.
    func release(_ connection: PostgresPooledConnection, reusable: Bool) {
        let now = ContinuousClock.now
        var toClose: [PostgresPooledConnection] = []
        let (grant, closed) = state.withLock {
            state -> ((CheckedContinuation<Grant, any Error>, Grant)?, [CheckedContinuation<Void, Never>]) in
            var grant: (CheckedContinuation<Grant, any Error>, Grant)?
            if reusable && connection.isOpen {
                if !state.waiters.isEmpty {
                    grant = (state.waiters.removeFirst().continuation, .connection(connection))
                } else if state.isClosed {
                    state.count -= 1
                    toClose.append(connection)
                } else {
                    connection.markReturned(at: now)
                    state.idle.append(connection)
                    // The oldest idle connection closes after the idle timeout.
                    while let oldest = state.idle.first, now - oldest.returnedAt >= Self.idleTimeout {
                        state.idle.removeFirst()
                        state.count -= 1
                        toClose.append(oldest)
                    }
                }
            } else {
                toClose.append(connection)
                if !state.waiters.isEmpty {
                    grant = (state.waiters.removeFirst().continuation, .room)
                } else {
                    state.count -= 1
                }
            }
            state.established -= toClose.count
            return (grant, state.count == 0 ? state.takeClosing() : [])
        }
        for connection in toClose { connection.close() }
        if let (continuation, value) = grant { continuation.resume(returning: value) }
        for continuation in closed { continuation.resume() }
        if toClose.count > 1 { grantRoomIfWaiting() }
    }

    /// Gives the room of a connection that failed to open to the first waiting request, if any.
    private func grantRoomIfWaiting() {
        let (waiter, closed) = state.withLock {
            state -> (CheckedContinuation<Grant, any Error>?, [CheckedContinuation<Void, Never>]) in
            guard !state.waiters.isEmpty, state.count < maximum else {
                return (nil, state.count == 0 ? state.takeClosing() : [])
            }
            state.count += 1
            return (state.waiters.removeFirst().continuation, [])
        }
        waiter?.resume(returning: .room)
        for continuation in closed { continuation.resume() }
    }

    /// An idle connection, if one is at hand at once.
    private func takeIdle() -> PostgresPooledConnection? {
        state.withLock { state in
            while let connection = state.idle.popLast() {
                if connection.isOpen { return connection }
                state.count -= 1
                state.established -= 1
                connection.close()
            }
            return nil
        }
    }

    // MARK: Closing

    /// Refuses new requests, lets the ones asked for finish, then closes every connection. Calling it again waits
    /// for the same end.
    func close() async {
        await withCheckedContinuation { continuation in
            let (idle, done) = state.withLock { state -> ([PostgresPooledConnection], Bool) in
                state.isClosed = true
                let idle = state.idle
                state.count -= idle.count
                state.established -= idle.count
                state.idle = []
                if state.count == 0 { return (idle, true) }
                state.closing.append(continuation)
                return (idle, false)
            }
            for connection in idle { connection.close() }
            if done { continuation.resume() }
        }
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    // MARK: Cancelling

    /// Asks the server to cancel the statement running on `connection` (`pg_cancel_backend`, from an idle
    /// connection or one opened for it), and closes `connection` when the request cannot be made.
    ///
    /// - Returns: Whether the server received the request.
    @discardableResult
    func cancelStatement(on connection: PostgresPooledConnection) async -> Bool {
        let sql = "SELECT pg_cancel_backend(\(connection.backendPID))"
        if let idle = takeIdle() {
            let sent = (try? await idle.query(PostgresQuery(unsafeSQL: sql), logger: logger).get()) != nil
            release(idle, reusable: sent)
            if sent { return true }
        }
        do {
            let side = try await openSideConnection()
            defer { PostgresPooledConnection.close(side) }
            _ = try await side.query(PostgresQuery(unsafeSQL: sql), logger: logger).get()
            return true
        } catch {
            // No way to reach the server: the statement ends when its connection does.
            connection.close()
            return false
        }
    }

    /// A connection of its own to the server, outside the pool's count and never lent: the caller closes it
    /// (``PostgresPooledConnection/close(_:)``). For a cancel request, and for the `LISTEN` of observations.
    ///
    /// - Throws: ``DatabaseError`` when the server cannot be reached or refuses the connection.
    func openSideConnection() async throws -> PostgresConnection {
        let id = state.withLock { state in
            defer { state.nextConnectionID += 1 }
            return state.nextConnectionID
        }
        do {
            return try await PostgresConnection.connect(
                configuration: try connectionConfiguration(), id: id, logger: logger)
        } catch {
            throw DatabaseError.translating(error, sql: nil, endpoint: endpoint, phase: .connecting)
        }
    }

    // MARK: Configuration

    /// The configuration of the pool's connections, made on first use.
    private func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let configuration = configuration.withLock({ $0 }) { return configuration }
        let made = try endpoint.connectionConfiguration()
        configuration.withLock { $0 = made }
        return made
    }
}

extension PostgresConnectionPool.State {
    /// Counts a connection the caller is to open, when it may: it waits behind earlier requests, and for a moment
    /// after a failed open while others are open; with none open, nothing would come back, so it opens.
    ///
    /// - Returns: Whether the caller opens a connection (counted in `count`) rather than waits.
    mutating func takeRoomToOpen(now: ContinuousClock.Instant, maximum: Int) -> Bool {
        let paused = pausedUntil.map { now < $0 } ?? false
        guard count == 0 || waiters.isEmpty && count < maximum && !paused else { return false }
        count += 1
        return true
    }

    /// The calls of `close()` to resume once the last connection closed, when the pool is closed.
    mutating func takeClosing() -> [CheckedContinuation<Void, Never>] {
        guard isClosed else { return [] }
        defer { closing = [] }
        return closing
    }
}
