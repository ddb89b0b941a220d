/// Hands each commit a backend announces to every listener: the sequences of a reader's `commitNotifications()`.
///
/// A listener that has not taken the last element gets no other: commits coalesce into the one waiting element, so
/// a slow observation never builds a queue. Once finished (the reader closed), every listener's sequence ends, and
/// one that starts listening after ends at once.
package final class CommitBroadcast: Sendable {
    private struct State {
        var listeners: [UInt64: AsyncThrowingStream<Void, any Error>.Continuation] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state = LockedValue(State())

    package init() {}

    /// A sequence with an element after each commit announced from now on.
    package func listen() -> AsyncThrowingStream<Void, any Error> {
        let (commits, continuation) = AsyncThrowingStream.makeStream(
            of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id: UInt64? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return commits
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { state in state.listeners.removeValue(forKey: id) }
        }
        return commits
    }

    /// Tells every listener that a commit is visible.
    package func announce() {
        let listeners = state.withLock { state in Array(state.listeners.values) }
        for listener in listeners {
            listener.yield()
        }
    }

    /// Ends every listener's sequence, now and for listeners to come.
    package func finish() {
        let listeners = state.withLock { state in
            state.isFinished = true
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners {
            listener.finish()
        }
    }

    /// How many listeners there are: whether a backend needs to look for commits at all, and for tests that check an
    /// observation stops listening.
    package var listenerCount: Int {
        state.withLock { state in state.listeners.count }
    }
}
