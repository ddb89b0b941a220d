/// The lifetime of a backend's look-out for commits that its own writer does not announce (another process's commits
/// to a SQLite file, PostgreSQL's notifications): a task that runs while anything listens to a ``CommitBroadcast``,
/// started by the first listener and ended once none is left, or for good by ``stop()``.
///
/// The task's body loops while ``keepRunning()`` says so, and calls ``answer(_:)`` once it looks out (or could not),
/// which lets the callers of ``start(_:)`` go on.
package final class CommitWatch: Sendable {
    private struct State {
        /// The running task; nil when none runs.
        var task: Task<Void, Never>?
        /// Whether the running task has answered the first callers of ``start(_:)``.
        var hasAnswered = false
        /// The callers of ``start(_:)`` waiting for the answer.
        var waiters: [CheckedContinuation<Void, any Error>] = []
        /// Set for good by ``stop()``.
        var isStopped = false
    }

    private let commits: CommitBroadcast
    private let state = LockedValue(State())

    /// A watch that runs while anything listens to `commits`.
    package init(commits: CommitBroadcast) {
        self.commits = commits
    }

    /// Starts `body` in a task unless one runs, and returns once it has answered (at once when one runs and has
    /// answered, or when the watch is stopped): called once something listens, before its first read.
    ///
    /// - Throws: The error `body` answered with.
    package func start(_ body: @escaping @Sendable () async -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { state in
                if state.isStopped || (state.task != nil && state.hasAnswered) { return true }
                state.waiters.append(continuation)
                if state.task == nil {
                    state.hasAnswered = false
                    state.task = Task { await body() }
                }
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops for good and waits for the running task: the reader is closing.
    package func stop() async {
        let (task, waiters) = state.withLock { state in
            state.isStopped = true
            defer { state.waiters = [] }
            return (state.task, state.waiters)
        }
        for waiter in waiters { waiter.resume() }
        task?.cancel()
        await task?.value
    }

    /// Lets the callers of ``start(_:)`` waiting for the task go on: with `error` when it could not look out.
    package func answer(_ error: (any Error)? = nil) {
        let waiters = state.withLock { state in
            state.hasAnswered = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    /// Takes the answer back: the task no longer looks out (its look ended, as a `LISTEN` whose connection it closed),
    /// and goes round again (``keepRunning()``). Until it answers again, a caller of ``start(_:)`` waits, rather than
    /// read while nothing looks out.
    package func withdrawAnswer() {
        state.withLock { $0.hasAnswered = false }
    }

    /// Takes the answer back when nothing listens, and returns whether it did: the task may then end its look (close
    /// its `LISTEN` connection). Checked under the lock ``start(_:)`` takes, so a caller of ``start(_:)`` either came
    /// before, and the look goes on for it, or comes after, and waits for the next look rather than read while this
    /// one ends.
    package func withdrawAnswerIfUnheard() -> Bool {
        state.withLock { state in
            guard commits.listenerCount == 0 else { return false }
            state.hasAnswered = false
            return true
        }
    }

    /// Whether anything still listens, and the watch is neither stopped nor its task cancelled: what a wait inside the
    /// task's body checks.
    package var hasListeners: Bool {
        !Task.isCancelled && commits.listenerCount > 0 && !state.withLock { $0.isStopped }
    }

    /// Whether the task's body goes round again. Otherwise marks the task ended, under the same lock as
    /// ``start(_:)``, so that a listener that comes meanwhile starts a new one; and lets any waiting caller go on.
    package func keepRunning() -> Bool {
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
