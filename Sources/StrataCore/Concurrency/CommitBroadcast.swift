import Synchronization

/// Hands each commit a backend announces to every listener that follows a table it changed: the sequences of a
/// reader's `commitNotifications()`.
///
/// A listener that has not taken the last element gets no other: commits coalesce into the one waiting element, so
/// a slow observation never builds a queue. Once finished (the reader closed), every listener's sequence ends, and
/// one that starts listening after ends at once.
///
/// An announcement runs on the writer's thread after each of its commits, so it costs the same whatever the number of
/// listeners: it counts the commit and stamps the tables it changed with that count, and resumes only the listeners
/// suspended for their next element that follow one of those tables. A listener takes an element when a table it
/// follows was stamped since the last one it took.
package final class CommitBroadcast: Sendable {
    private struct State {
        /// How many commits were announced.
        var commits: UInt64 = 0
        /// The count of the last commit announced with each table, and with ``TableScope/everything``.
        var changedAt: [String: UInt64] = [:]
        var everythingChangedAt: UInt64 = 0
        /// Each listener: the count of commits as of the last element it took, and what it follows.
        var listeners: [UInt64: (seen: UInt64, scope: TableScope)] = [:]
        /// The listeners suspended for their next element, and the same by the tables they follow, or among those
        /// that follow everything.
        var waiting: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var waitingByTable: [String: Set<UInt64>] = [:]
        var waitingForEverything: Set<UInt64> = []
        var nextID: UInt64 = 0
        var isFinished = false

        /// Whether a commit that listener `id` follows was announced since the last element it took.
        func hasCommit(for id: UInt64) -> Bool {
            guard let (seen, scope) = listeners[id] else { return false }
            guard everythingChangedAt <= seen else { return true }
            switch scope {
            case .everything: return commits > seen
            case .tables(let tables): return tables.contains { (changedAt[$0] ?? 0) > seen }
            }
        }

        /// Suspends listener `id` until a commit it follows.
        mutating func wait(_ id: UInt64, with continuation: CheckedContinuation<Bool, Never>) {
            waiting[id] = continuation
            switch listeners[id]?.scope ?? .everything {
            case .everything: waitingForEverything.insert(id)
            case .tables(let tables): for table in tables { waitingByTable[table, default: []].insert(id) }
            }
        }

        /// Takes listener `id` out of the waiting ones, and returns its continuation if it waited.
        mutating func stopWaiting(_ id: UInt64) -> CheckedContinuation<Bool, Never>? {
            guard let continuation = waiting.removeValue(forKey: id) else { return nil }
            switch listeners[id]?.scope ?? .everything {
            case .everything: waitingForEverything.remove(id)
            case .tables(let tables):
                for table in tables {
                    waitingByTable[table]?.remove(id)
                    if waitingByTable[table]?.isEmpty == true { waitingByTable[table] = nil }
                }
            }
            return continuation
        }
    }

    private let state = LockedValue(State())
    /// How many listeners there are, read without the lock by the writer before each of its jobs.
    private let listeners = Atomic<Int>(0)

    package init() {}

    /// A sequence with an element after each commit announced from now on, of the tables it follows (everything, until
    /// ``CommitNotifications/follow(_:)`` says otherwise). It stops listening once it is dropped.
    package func listen() -> CommitNotifications {
        let id: UInt64? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = (seen: state.commits, scope: .everything)
            listeners.add(1, ordering: .relaxed)
            return state.nextID
        }
        return CommitNotifications(listener: id.map { Listener(broadcast: self, id: $0) })
    }

    /// Tells every listener that follows a table in `changes` that a commit of them is visible.
    package func announce(_ changes: TableScope = .everything) {
        let resumed = state.withLock { state in
            state.commits += 1
            let count = state.commits
            var ids: Set<UInt64>
            switch changes {
            case .everything:
                state.everythingChangedAt = count
                ids = Set(state.waiting.keys)
            case .tables(let tables):
                ids = state.waitingForEverything
                for table in tables {
                    state.changedAt[table] = count
                    if let waiting = state.waitingByTable[table] { ids.formUnion(waiting) }
                }
            }
            return ids.compactMap { id in
                state.listeners[id]?.seen = count
                return state.stopWaiting(id)
            }
        }
        for listener in resumed {
            listener.resume(returning: true)
        }
    }

    /// Ends every listener's sequence, now and for listeners to come.
    package func finish() {
        let resumed = state.withLock { state in
            state.isFinished = true
            return state.waiting.keys.compactMap { state.stopWaiting($0) }
        }
        for listener in resumed {
            listener.resume(returning: false)
        }
    }

    /// How many listeners there are: whether a backend needs to look for commits at all, and for tests that check an
    /// observation stops listening.
    package var listenerCount: Int {
        listeners.load(ordering: .relaxed)
    }

    /// How many listeners wait for their next element: for tests.
    package var waitingCount: Int {
        state.withLock { state in state.waiting.count }
    }

    /// Makes listener `id` follow `scope` from now on: commits announced since its last element count only if they
    /// changed a table of `scope`.
    fileprivate func follow(_ scope: TableScope, for id: UInt64) {
        state.withLock { state in
            guard state.waiting[id] == nil else { return }  // a sequence has one consumer, which is not waiting
            state.listeners[id]?.scope = scope
        }
    }

    /// Whether listener `id` has a commit to take (true), at once or once one is announced, or its sequence ends
    /// (false): the broadcast finished, or the listening task was cancelled.
    fileprivate func next(for id: UInt64) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer: Bool? = state.withLock { state in
                    guard !state.isFinished, !Task.isCancelled, state.listeners[id] != nil else { return false }
                    if state.hasCommit(for: id) {
                        state.listeners[id]?.seen = state.commits
                        return true
                    }
                    state.wait(id, with: continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            state.withLock { state in state.stopWaiting(id) }?.resume(returning: false)
        }
    }

    /// Ends listener `id`: its sequence was dropped.
    fileprivate func remove(_ id: UInt64) {
        let removed = state.withLock { state in
            _ = state.stopWaiting(id)
            return state.listeners.removeValue(forKey: id) != nil
        }
        if removed { listeners.subtract(1, ordering: .relaxed) }
    }

    /// One listener's membership, held by its sequence and iterators: dropping them ends it.
    fileprivate final class Listener: Sendable {
        let broadcast: CommitBroadcast
        let id: UInt64

        init(broadcast: CommitBroadcast, id: UInt64) {
            self.broadcast = broadcast
            self.id = id
        }

        /// No element is awaited then: the iterator that awaits one holds this listener.
        deinit {
            broadcast.remove(id)
        }
    }
}

/// The commits a reader announces from when it was asked for them (`DatabaseReader.commitNotifications()`): an
/// element after each commit that may change the tables it follows, which are all of them until ``follow(_:)``
/// narrows them. Commits made while no element is taken come as one element, never a queue. It ends when the reader
/// closes, or when the task waiting for an element is cancelled; dropping it and its iterator stops the listening.
///
/// One task iterates it: an observation follows the tables of each read, then waits for a commit of them.
public struct CommitNotifications: AsyncSequence, Sendable {
    public typealias Element = Void
    public typealias Failure = Never

    /// The listener; nil for a reader closed before the sequence was asked for.
    private let listener: CommitBroadcast.Listener?

    fileprivate init(listener: CommitBroadcast.Listener?) {
        self.listener = listener
    }

    /// From now on, counts only the commits that may change `scope`: those announced since the last element taken
    /// count if they changed a table of it. Called between elements, not while the iterator waits for one.
    public func follow(_ scope: TableScope) {
        listener.map { $0.broadcast.follow(scope, for: $0.id) }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(listener: listener)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = Void
        public typealias Failure = Never

        private let listener: CommitBroadcast.Listener?

        fileprivate init(listener: CommitBroadcast.Listener?) {
            self.listener = listener
        }

        /// The next commit of the tables followed, at once when one was announced since the last element; nil once
        /// the reader closed or the waiting task was cancelled.
        public mutating func next() async -> Void? {
            guard let listener, await listener.broadcast.next(for: listener.id) else { return nil }
            return ()
        }
    }
}
