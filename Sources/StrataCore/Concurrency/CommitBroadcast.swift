/// Hands each commit a backend announces to every listener: the sequences of a reader's `commitNotifications()`.
///
/// A listener that has not taken the last element gets no other: commits coalesce into the one waiting element, so
/// a slow observation never builds a queue. Once finished (the reader closed), every listener's sequence ends, and
/// one that starts listening after ends at once.
///
/// An announcement runs on the writer's thread after each of its commits, so it costs the same whatever the number of
/// listeners that have an element waiting: it counts the commit, and only listeners suspended for their next element
/// are resumed. A listener takes an element when the count has moved since the last one it took.
package final class CommitBroadcast: Sendable {
    private struct State {
        /// How many commits were announced.
        var commits: UInt64 = 0
        /// Each listener's count of commits as of the last element it took.
        var seen: [UInt64: UInt64] = [:]
        /// The listeners suspended for their next element.
        var waiting: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state = LockedValue(State())

    package init() {}

    /// A sequence with an element after each commit announced from now on. It stops listening once it is dropped.
    package func listen() -> AsyncThrowingStream<Void, any Error> {
        let id: UInt64? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            state.seen[state.nextID] = state.commits
            return state.nextID
        }
        guard let id else { return AsyncThrowingStream { nil } }
        let listener = Listener(broadcast: self, id: id)
        return AsyncThrowingStream { await listener.broadcast.next(for: listener.id) ? () : nil }
    }

    /// Tells every listener that a commit is visible.
    package func announce() {
        let resumed = state.withLock { state in
            state.commits += 1
            guard !state.waiting.isEmpty else { return [CheckedContinuation<Bool, Never>]() }
            defer { state.waiting = [:] }
            for id in state.waiting.keys { state.seen[id] = state.commits }
            return Array(state.waiting.values)
        }
        for listener in resumed {
            listener.resume(returning: true)
        }
    }

    /// Ends every listener's sequence, now and for listeners to come.
    package func finish() {
        let resumed = state.withLock { state in
            state.isFinished = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for listener in resumed {
            listener.resume(returning: false)
        }
    }

    /// How many listeners there are: whether a backend needs to look for commits at all, and for tests that check an
    /// observation stops listening.
    package var listenerCount: Int {
        state.withLock { state in state.seen.count }
    }

    /// Whether listener `id` has a commit to take (true), at once or once one is announced, or its sequence ends
    /// (false): the broadcast finished, or the listening task was cancelled.
    private func next(for id: UInt64) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer: Bool? = state.withLock { state in
                    guard !state.isFinished, !Task.isCancelled, let seen = state.seen[id] else { return false }
                    if seen < state.commits {
                        state.seen[id] = state.commits
                        return true
                    }
                    state.waiting[id] = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            state.withLock { state in state.waiting.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    /// One listener's membership, held by its sequence: dropping the sequence ends it.
    private final class Listener: Sendable {
        let broadcast: CommitBroadcast
        let id: UInt64

        init(broadcast: CommitBroadcast, id: UInt64) {
            self.broadcast = broadcast
            self.id = id
        }

        /// No element is awaited then: the sequence that awaits one holds this listener.
        deinit {
            _ = broadcast.state.withLock { state in state.seen.removeValue(forKey: id) }
        }
    }
}
