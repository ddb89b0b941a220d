/// A query's results that follow the data: what `observe` returns on every ``DatabaseReader``. An asynchronous
/// sequence whose first element is the current result, read at once, and each next one the result read again after
/// a commit that may have changed it.
///
/// ```swift
/// for try await notes in pool.observe(Note.filter(Column("mood") == "happy").order(Column("id"))) {
///     render(notes)
/// }
/// ```
///
/// - **No commit is missed.** The observation listens for commits before its first read, so a commit made at any
///   moment after iteration begins is followed by a read that sees it: the last element after a burst of commits is
///   the result as of the last one.
/// - **Only a commit that may change the result reads it again**: one that wrote a table the last read used (SQLite
///   knows them from the statements the read ran, StrataPostgres from the tables PostgreSQL scanned; see
///   ``TableScope``). A commit whose tables cannot be known (a schema change, another process's commit to a SQLite
///   file) counts for every observation.
/// - **Each result is one consistent snapshot**, read in a `read` (writes refused), after the commit that caused it.
/// - **Equal results are emitted once**: when the result is `Equatable`, a read that finds what was emitted last
///   emits nothing. A result that is not `Equatable` is emitted after every commit that may have changed it.
/// - **A slow consumer gets the latest result**, never a queue of stale ones: at most one result waits for it.
/// - **It holds nothing between reads**: each read borrows a connection and gives it back; an observation never
///   holds the writer.
/// - **It ends** when the consuming task is cancelled or leaves the loop (the observation stops listening), when a
///   read throws (the loop throws that error), or when the reader is closed (the loop ends, or throws
///   ``DatabaseError/Code/connectionClosed`` when a read was under way).
///
/// Each `for` loop over the same value is an observation of its own, from its own first read.
public struct DatabaseObservation<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    /// Starts one observation, as an iteration begins.
    private let start: @Sendable () -> AsyncThrowingStream<Element, any Error>

    /// An observation of `reader` that reads with `fetch` and skips a result `isDuplicate` finds equal to the last.
    package init<Reader: DatabaseReader>(
        reader: Reader,
        isDuplicate: @escaping @Sendable (Element, Element) -> Bool,
        fetch: @escaping @Sendable (Reader.Session) async throws -> Element
    ) {
        start = {
            let (results, continuation) = AsyncThrowingStream.makeStream(
                of: Element.self, bufferingPolicy: .bufferingNewest(1))
            let task = Task {
                let budget = ObservationBudget.shared.join(reader)
                defer { ObservationBudget.shared.leave(budget) }
                do {
                    // Listening begins before the first read: a commit after this point is followed by a read.
                    let commits = try await reader.commitNotifications()
                    var nextCommit = commits.makeAsyncIterator()
                    var last: Element?
                    var nextRead = ContinuousClock.now
                    repeat {
                        // Spaced out so that the reader's observations take a bounded share of the time (see
                        // `ObservationBudget`): the read after the wait sees every commit made meanwhile.
                        if nextRead > .now { try await Task.sleep(until: nextRead) }
                        let started = ContinuousClock.now
                        let (result, tables) = try await reader.observationRead { session in try await fetch(session) }
                        nextRead = ObservationBudget.shared.nextRead(budget, after: started, until: .now)
                        // Listening narrows to the tables this result depends on. A commit of them made since the
                        // last element was taken, during this read, is the next element at once.
                        commits.follow(tables)
                        if let previous = last, isDuplicate(previous, result) { continue }
                        continuation.yield(result)
                        last = result
                    } while await nextCommit.next() != nil
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
            return results
        }
    }

    /// Begins an observation: its first read starts now.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: start().makeAsyncIterator())
    }

    /// One observation. Dropping it ends the observation.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = any Error

        private var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        fileprivate init(base: AsyncThrowingStream<Element, any Error>.AsyncIterator) {
            self.base = base
        }

        /// The next result: at once for the first, then after a commit that changed it; nil once the observation has
        /// ended.
        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }
}

extension DatabaseReader {
    /// The records `request` selects, now and after each commit that changes them (see ``DatabaseObservation``).
    ///
    /// ```swift
    /// for try await notes in pool.observe(Note.filter(Column("mood") == "happy").order(Column("id"))) {
    ///     render(notes)
    /// }
    /// ```
    public func observe<Record: Model & Sendable & Equatable>(_ request: QueryRequest<Record>)
        -> DatabaseObservation<[Record]>
    {
        observe { session in try await session.fetchAll(request) }
    }

    /// The records `request` selects, now and after each commit that may change them: emitted after every such commit,
    /// since records that are not `Equatable` cannot be compared with the last result.
    @_disfavoredOverload
    public func observe<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> DatabaseObservation<[Record]> {
        observe { session in try await session.fetchAll(request) }
    }

    /// What `fetch` reads, now and after each commit that changes it; a result equal to the last is not emitted again.
    ///
    /// ```swift
    /// for try await count in pool.observe({ session in try await session.fetchCount(Note.all()) }) {
    ///     print("\(count) notes")
    /// }
    /// ```
    public func observe<Value: Sendable & Equatable>(
        _ fetch: @escaping @Sendable (Session) async throws -> Value
    ) -> DatabaseObservation<Value> {
        DatabaseObservation(reader: self, isDuplicate: { $0 == $1 }, fetch: fetch)
    }

    /// What `fetch` reads, now and after each commit that may change it, emitted each time.
    @_disfavoredOverload
    public func observe<Value: Sendable>(
        _ fetch: @escaping @Sendable (Session) async throws -> Value
    ) -> DatabaseObservation<Value> {
        DatabaseObservation(reader: self, isDuplicate: { _, _ in false }, fetch: fetch)
    }
}

/// What keeps the observations of one reader from taking the time its writer needs: each waits, after a read, long
/// enough that all of them together spend at most a tenth of the time reading. After a read that took `d`, with `n`
/// observations of the reader running, the next read starts no sooner than `9 × n × d` later.
///
/// A commit after a quiet spell is read at once; only commits that come faster than that wait, and the read after the
/// wait sees all of them. One observation whose read takes 50 µs waits at most 0.45 ms; ten, 4.5 ms; never more than
/// ``longestWait``.
package final class ObservationBudget: Sendable {
    package static let shared = ObservationBudget()

    /// The longest an observation waits to read after a commit, however slow its reads: freshness wins over the share
    /// of time then.
    package static let longestWait = Duration.seconds(1)

    /// One observation's membership: its reader's identity.
    package struct Member: Sendable {
        let reader: ObjectIdentifier
    }

    /// How many observations each reader has running.
    private let counts = LockedValue<[ObjectIdentifier: Int]>([:])

    package init() {}

    /// Counts an observation of `reader` in, until ``leave(_:)``.
    package func join(_ reader: some DatabaseReader) -> Member {
        let member = Member(reader: ObjectIdentifier(reader))
        counts.withLock { $0[member.reader, default: 0] += 1 }
        return member
    }

    package func leave(_ member: Member) {
        counts.withLock { counts in
            let remaining = (counts[member.reader] ?? 1) - 1
            counts[member.reader] = remaining > 0 ? remaining : nil
        }
    }

    /// The earliest time `member`'s next read may start, after a read from `started` to `ended`.
    package func nextRead(
        _ member: Member, after started: ContinuousClock.Instant, until ended: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
        let observations = counts.withLock { $0[member.reader] ?? 1 }
        return ended + min((ended - started) * (9 * observations), Self.longestWait)
    }
}
