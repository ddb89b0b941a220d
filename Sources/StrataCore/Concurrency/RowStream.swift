/// The rows of one query as an asynchronous sequence, read and decoded a few at a time, on a connection leased for
/// the whole iteration, as the consumer asks for them: what `stream` returns on every ``DatabaseReader``
/// (`DatabasePool`, `DatabaseQueue`, `PostgresPool`).
///
/// ```swift
/// for try await note in pool.stream(Note.filter(Column("mood") == "happy").order(Column("id"))) {
///     try await response.write(note)
///     if response.isFull { break }      // the connection goes back to the pool here, not later
/// }
/// ```
///
/// The same guarantees hold on every backend:
///
/// - **Memory stays flat however many rows the query returns**: rows are read and decoded a few at a time, and
///   only as the consumer takes the rows before them. A slow consumer slows the reading down; nothing piles up. On
///   SQLite the connection reads at most 64 rows ahead, on its own thread; on PostgreSQL, postgres-nio asks the
///   server for more rows only as they are read.
/// - **An iteration holds one connection and one read transaction from its first `next()` until it ends, so it sees
///   one consistent snapshot**: the database as committed when that first `next()` began, whatever is written
///   meanwhile. Making the stream takes no connection; each `for` loop over the same stream is an iteration of its
///   own, with its own connection and snapshot.
/// - **The connection goes back as soon as the iteration ends**: when the last row has been read, when `next()`
///   throws, when the loop is left by `break`, `return` or a thrown error, or when the iterator is dropped
///   unfinished. It does not wait for the stream value to be released. (On PostgreSQL, a loop left early first ends
///   the statement on the server, so that the connection comes back clean: see `PostgresPool.stream`.)
/// - **Once the consuming task is cancelled, the next call to `next()` throws `CancellationError`** and gives the
///   connection back; rows already read but not taken are dropped. A task cancelled while it waits for a connection
///   throws `CancellationError` too.
/// - **Errors come out of `next()`**: an SQL error, a query that cannot be prepared, or a row that does not decode
///   (the error names the column), after the rows before it. After an error or the end, `next()` returns nil.
/// - **The stream only reads**: its transaction refuses writes, as a `read` does.
/// - Waiting for a connection is waiting for a read: in turn with the other reads, suspended, holding no thread. A
///   stream being iterated is work in flight for `close()`, which waits for it to end; an iteration that has not
///   begun when `close()` is called throws ``DatabaseError/Code/connectionClosed``.
/// - **Inside the loop, do not wait for a connection the stream may be holding**: a `read` or `write` on a
///   `DatabaseQueue` (one connection), or a `read` on a pool whose every connection is held by streams, waits for the
///   loop to end, which waits for it. Collect what the loop needs first, or write after the loop.
public struct RowStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    /// Makes the state of one iteration, which takes no connection until its first `next()`.
    private let begin: @Sendable () -> any RowStreamIteration<Element>

    /// A stream whose iterations `begin` makes: the backend's side of the stream.
    package init(_ begin: @escaping @Sendable () -> any RowStreamIteration<Element>) {
        self.begin = begin
    }

    /// Begins an iteration: it takes a connection at its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: begin())
    }

    /// One pass over the rows, on one connection and one snapshot. Dropping it gives the connection back.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = any Error

        private let iteration: any RowStreamIteration<Element>

        fileprivate init(iteration: any RowStreamIteration<Element>) {
            self.iteration = iteration
        }

        /// The next row, or nil once the rows are exhausted; reads the next few rows when none is left from the
        /// last batch.
        ///
        /// - Throws: `CancellationError` once the task is cancelled; ``DatabaseError/Code/connectionClosed`` when
        ///   the pool or queue was closed before the iteration began; the error of a failing statement; the error of
        ///   a row that does not decode.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(any Error)
            -> Element?
        {
            try await iteration.next(isolation: actor)
        }

        /// The next row, or nil once the rows are exhausted: the same as `next(isolation:)`.
        public mutating func next() async throws -> Element? {
            try await iteration.next(isolation: nil)
        }
    }
}

/// A backend's side of one iteration of a ``RowStream``: it leases a connection at its first `next`, reads the rows
/// as they are asked for, and gives the connection back when the rows end, when `next` throws, or when it is released
/// unfinished (its `deinit`).
///
/// Used by one task at a time, the one iterating.
package protocol RowStreamIteration<Element>: AnyObject {
    associatedtype Element: Sendable

    /// The next row, or nil once the rows are exhausted, the iteration failed or was cancelled before.
    func next(isolation actor: isolated (any Actor)?) async throws -> Element?
}
