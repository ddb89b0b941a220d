internal import PostgresNIO
internal import StrataCore

/// Hears the commits PostgreSQL announces on ``PostgresObservation/channel``, for the observations of a
/// ``PostgresPool``: while anything listens to `commits`, a connection of its own to the primary runs `LISTEN`, and each
/// notification is announced.
///
/// - ``start()`` returns once `LISTEN` has been confirmed, so a commit made after it is heard.
/// - **A connection that breaks** (the server restarted, `pg_terminate_backend`) is opened again, after a pause that
///   grows from 50 ms to 2 s while the server cannot be reached; once `LISTEN` runs again, a commit is announced, so
///   that what was committed meanwhile is read.
/// - It closes its connection once nothing listens (checked every second), and opens one again for the next listener.
final class PostgresCommitListener: Sendable {
    private struct State {
        /// The listening task while it runs; nil when stopped.
        var task: Task<Void, Never>?
        /// Whether the running task has tried to listen once, and so answered the first callers of ``start()``.
        var hasAnswered = false
        /// The callers of ``start()`` waiting for the first `LISTEN`.
        var waiters: [CheckedContinuation<Void, any Error>] = []
        /// Set for good by ``stop()``.
        var isStopped = false
    }

    private let pool: PostgresConnectionPool
    private let commits: CommitBroadcast
    private let state = LockedValue(State())

    static let firstPause = Duration.milliseconds(50)
    static let longestPause = Duration.seconds(2)
    static let listenerCheckInterval = Duration.seconds(1)

    /// Listens on a connection to `pool`'s server, announcing to `commits`.
    init(pool: PostgresConnectionPool, commits: CommitBroadcast) {
        self.pool = pool
        self.commits = commits
    }

    /// Starts listening unless it does, and returns once `LISTEN` has run: called once something listens to
    /// `commits`, before its first read.
    ///
    /// - Throws: ``DatabaseError`` when the first connection cannot be opened or `LISTEN` fails.
    func start() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { state in
                if state.isStopped || (state.task != nil && state.hasAnswered) { return true }
                state.waiters.append(continuation)
                if state.task == nil {
                    state.hasAnswered = false
                    state.task = Task { await self.listen() }
                }
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops listening for good and waits for the task: the pool is closing.
    func stop() async {
        let (task, waiters) = state.withLock { state in
            state.isStopped = true
            defer { state.waiters = [] }
            return (state.task, state.waiters)
        }
        for waiter in waiters { waiter.resume() }
        task?.cancel()
        await task?.value
    }

    private func listen() async {
        var hasListened = false
        var pause = Self.firstPause
        while keepListening() {
            do {
                let connection = try await pool.openSideConnection()
                defer { PostgresPooledConnection.close(connection) }
                try await connection.listen(on: PostgresObservation.channel) { notifications in
                    answer(nil)
                    pause = Self.firstPause
                    // What was committed while no connection listened is read now.
                    if hasListened { commits.announce() }
                    hasListened = true
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await _ in notifications { self.commits.announce() }
                        }
                        group.addTask {
                            while self.hasListeners() {
                                try await Task.sleep(for: Self.listenerCheckInterval)
                            }
                        }
                        // The connection ended, or nothing listens any more.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                answer(error)
                // Whatever happens before the next `LISTEN` runs is announced then.
                hasListened = true
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, Self.longestPause)
            }
        }
    }

    /// Resumes the callers of ``start()`` waiting for the first `LISTEN`: with `error` when it failed.
    private func answer(_ error: (any Error)?) {
        let waiters = state.withLock { state in
            state.hasAnswered = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Whether anything still listens and the listener runs on.
    private func hasListeners() -> Bool {
        !Task.isCancelled && commits.listenerCount > 0 && !state.withLock { $0.isStopped }
    }

    /// Whether to listen again. Otherwise marks the task ended, under the same lock as ``start()``, so that a listener
    /// that comes meanwhile starts a new one.
    private func keepListening() -> Bool {
        let (keep, waiters) = state.withLock { state in
            guard !state.isStopped, !Task.isCancelled, commits.listenerCount > 0 else {
                if !state.isStopped { state.task = nil }
                defer { state.waiters = [] }
                return (false, state.waiters)
            }
            return (true, [])
        }
        for waiter in waiters { waiter.resume() }
        return keep
    }
}
