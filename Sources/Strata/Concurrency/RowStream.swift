/// The rows of one query as an asynchronous sequence, read and decoded a few at a time, on a connection leased for
/// the whole iteration, as the consumer asks for them: what `DatabasePool.stream` and `DatabaseQueue.stream` return.
///
/// ```swift
/// for try await note in pool.stream(Note.filter(Column("mood") == "happy").order(Column("id"))) {
///     try await response.write(note)
///     if response.isFull { break }      // the reader goes back to the pool here, not later
/// }
/// ```
///
/// - **Memory stays flat however many rows the query returns**: the connection reads and decodes at most
///   64 rows at a time, on its own dispatch queue, and only once the consumer has taken the rows
///   before them. A slow consumer slows the reading down; nothing piles up.
/// - **An iteration holds one connection and one read transaction from its first `next()` until it ends, so it sees
///   one consistent snapshot**: the database as committed when that first `next()` began, whatever is written
///   meanwhile. Making the stream takes no connection; each `for` loop over the same stream is an iteration of its
///   own, with its own connection and snapshot.
/// - **The connection goes back as soon as the iteration ends**: when the last row has been read (before the
///   consumer has taken the last rows of the batch), when `next()` throws, when the loop is left by `break`,
///   `return` or a thrown error, or when the iterator is dropped unfinished. It does not wait for the stream value
///   to be released.
/// - **Once the consuming task is cancelled, the next call to `next()` throws `CancellationError`** and gives the
///   connection back; rows already read but not taken are dropped. A task cancelled while it waits for a connection
///   throws `CancellationError` too.
/// - **Errors come out of `next()`**: an SQL error, a query that cannot be prepared, or a row that does not decode
///   (the error names the column), after the rows before it. After an error or the end, `next()` returns nil.
/// - The stream only reads: on a ``DatabasePool`` its connection is a read-only reader; on a ``DatabaseQueue`` its
///   transaction refuses writes (`PRAGMA query_only`), and `BEGIN`, `COMMIT` and `ROLLBACK` are refused on both.
/// - Waiting for a connection is waiting for a read: in turn with the other reads, suspended, holding no thread. A
///   stream being iterated is work in flight for `close()`, which waits for it to end; an iteration that has not
///   begun when `close()` is called throws `DatabaseError.Code.connectionClosed`.
/// - On a ``DatabaseQueue`` the stream holds the queue's only connection: every other read and write waits until the
///   iteration ends. Use a ``DatabasePool`` to stream while others read and write.
/// - **Inside the loop, do not wait for a connection the stream may be holding**: a `read` or `write` on the same
///   queue, or a `read` on a pool whose every reader is held by streams, waits for the loop to end, which waits for
///   it. Collect what the loop needs first, or write after the loop (a pool's `write` inside the loop is fine: the
///   writer is not a reader).
///
/// See https://www.sqlite.org/isolation.html
public struct RowStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    /// How many rows the connection reads and decodes at a time, at most: few enough that memory stays flat, enough
    /// that the trips to the connection's queue cost little next to the decoding.
    static var batchSize: Int { 64 }

    private let source: StreamSource
    private let open: @Sendable (Database) throws -> FetchCursor<Element>

    /// A stream of what `open` returns, on a connection of `source`. `open` runs on the connection's queue, in the
    /// stream's transaction, and makes a cursor with a statement of its own.
    init(source: StreamSource, open: @escaping @Sendable (Database) throws -> FetchCursor<Element>) {
        self.source = source
        self.open = open
    }

    /// Begins an iteration: it takes a connection at its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: StreamIteration(source: source, open: open))
    }

    /// One pass over the rows, on one connection and one snapshot. Dropping it gives the connection back.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = any Error

        private let iteration: StreamIteration<Element>

        fileprivate init(iteration: StreamIteration<Element>) {
            self.iteration = iteration
        }

        /// The next row, or nil once the rows are exhausted; reads the next few rows when none is left from the
        /// last batch.
        ///
        /// - Throws: `CancellationError` once the task is cancelled; `DatabaseError.Code.connectionClosed` when
        ///   the pool or queue was closed before the iteration began; the `DatabaseError` of a failing statement;
        ///   the error of a row that does not decode.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(any Error)
            -> Element?
        {
            try await iteration.next()
        }

        /// The next row, or nil once the rows are exhausted: the same as `next(isolation:)`.
        public mutating func next() async throws -> Element? {
            try await iteration.next(isolation: nil)
        }
    }
}

/// Where a stream reads: the connections it leases one from, and whether its transaction must refuse writes itself.
struct StreamSource: Sendable {
    let connections: ConnectionPool
    /// Whether the connection can write, so that the stream turns `PRAGMA query_only` on for its transaction: a
    /// queue's connection, not a pool's read-only readers.
    let needsQueryOnly: Bool
}

/// The consumer's side of one iteration: the leased connection, and the rows read but not yet taken.
///
/// Used by one task at a time, the one iterating (the iterator is not `Sendable`), and released when the iterator
/// is dropped, at which point an unfinished iteration gives its connection back.
private final class StreamIteration<Element: Sendable> {
    private enum State {
        /// No connection yet: nothing has been asked for.
        case notStarted
        /// The connection is leased and the cursor open on it.
        case reading(SerialConnection)
        /// Every row has been read and the connection given back; what is left in `pending` goes out, then `end`.
        case draining(end: StreamEnd)
        /// Nothing more: `next()` returns nil.
        case finished
    }

    private let source: StreamSource
    private let open: @Sendable (Database) throws -> FetchCursor<Element>
    private let reading = StreamReading<Element>()
    private var state = State.notStarted
    /// The rows of the last batch not yet taken, the next one last.
    private var pending: [Element] = []

    init(source: StreamSource, open: @escaping @Sendable (Database) throws -> FetchCursor<Element>) {
        self.source = source
        self.open = open
    }

    deinit {
        // An iteration dropped unfinished: a `break` out of the loop, a thrown error, an abandoned iterator.
        if case .reading(let connection) = state {
            giveBack(connection, closingCursor: true)
        }
    }

    func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
        while true {
            if case .finished = state { return nil }
            if Task.isCancelled {
                stop()
                throw CancellationError()
            }
            if let element = pending.popLast() { return element }
            switch state {
            case .finished:
                return nil
            case .draining(let end):
                state = .finished
                if case .failure(let error) = end { throw error }
                return nil
            case .notStarted:
                let connection: SerialConnection
                do {
                    connection = try await source.connections.acquire()
                } catch {
                    state = .finished
                    throw error
                }
                state = .reading(connection)
                try await readBatch(on: connection)
            case .reading(let connection):
                try await readBatch(on: connection)
            }
        }
    }

    /// Reads the next rows into `pending`; gives the connection back as soon as the batch is the last.
    private func readBatch(
        on connection: SerialConnection, isolation actor: isolated (any Actor)? = #isolation
    ) async throws {
        let batch: StreamBatch<Element>
        do {
            batch = try await connection.perform { [reading, open, source] db in
                reading.read(upTo: RowStream<Element>.batchSize, opening: open, source: source, in: db)
            }
        } catch {
            // The body itself never throws: the connection stopped before it could run.
            giveBack(connection, closingCursor: true)
            state = .finished
            throw error
        }
        pending = batch.elements.reversed()
        if let end = batch.end {
            // The cursor and the transaction are closed already, on the connection's queue.
            giveBack(connection, closingCursor: false)
            state = .draining(end: end)
        }
    }

    /// Ends the iteration now: gives the connection back and drops the rows not taken.
    private func stop() {
        if case .reading(let connection) = state {
            giveBack(connection, closingCursor: true)
        }
        state = .finished
        pending = []
    }

    /// Returns `connection` to its pool, after closing the cursor and ending the transaction on its queue when they
    /// are still open. The close is queued first, so that whoever gets the connection next finds it clean.
    private func giveBack(_ connection: SerialConnection, closingCursor: Bool) {
        if closingCursor {
            connection.submit { [reading, source] db in reading.close(source: source, in: db) }
        }
        source.connections.release(connection)
    }
}

/// How an iteration's reading ended.
enum StreamEnd: Sendable {
    case exhausted
    case failure(any Error)
}

/// Rows read in one trip to the connection's queue, and how the reading ended when this was the last trip.
struct StreamBatch<Element: Sendable>: Sendable {
    var elements: [Element]
    var end: StreamEnd?
}

/// The connection's side of one iteration: its cursor and its read transaction.
///
/// `@unchecked Sendable` is sound because it is reached only by bodies run on the leased connection's serial queue:
/// ``StreamIteration`` sends them one at a time (``SerialConnection/perform(_:)``, whose caller stays suspended until
/// the body returns), and the last one (``SerialConnection/submit(_:)``) is queued before the connection goes back to
/// its pool. The queue and the job's completion order them, with edges the thread sanitizer sees.
private final class StreamReading<Element: Sendable>: @unchecked Sendable {
    private var cursor: FetchCursor<Element>?
    /// Whether the transaction is open (and `PRAGMA query_only` on, when the source needs it).
    private var isOpen = false

    /// Up to `count` more rows; the first call begins the transaction and opens the cursor. A batch with an end has
    /// closed the cursor and ended the transaction.
    func read(
        upTo count: Int, opening open: (Database) throws -> FetchCursor<Element>, source: StreamSource,
        in db: Database
    ) -> StreamBatch<Element> {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        do {
            let cursor = try self.cursor ?? begin(opening: open, source: source, in: db)
            let exhausted = try db.refusingTransactionControl(.transactionControlRefused) { () throws -> Bool in
                while elements.count < count {
                    guard let element = try cursor.next() else { return true }
                    elements.append(element)
                }
                return false
            }
            guard exhausted else { return StreamBatch(elements: elements, end: nil) }
            close(source: source, in: db)
            return StreamBatch(elements: elements, end: .exhausted)
        } catch {
            close(source: source, in: db)
            return StreamBatch(elements: elements, end: .failure(error))
        }
    }

    /// Begins the read transaction and opens the cursor. The snapshot is taken at the cursor's first step, which
    /// follows at once, on the same trip.
    private func begin(
        opening open: (Database) throws -> FetchCursor<Element>, source: StreamSource, in db: Database
    ) throws -> FetchCursor<Element> {
        isOpen = true
        if source.needsQueryOnly {
            try db.execute(query: "PRAGMA query_only = ON")
        }
        try db.beginTransaction(.deferred)
        let cursor = try db.refusingTransactionControl(.transactionControlRefused) { try open(db) }
        self.cursor = cursor
        return cursor
    }

    /// Finalizes the cursor's statement and ends the transaction; does nothing the second time.
    func close(source: StreamSource, in db: Database) {
        cursor = nil
        guard isOpen else { return }
        isOpen = false
        // Ending a read transaction fails only on a closed or broken connection, which has nothing left to end;
        // the error the consumer needs is the one that ended the reading.
        if db.isInTransaction {
            try? db.rollbackTransaction()
        }
        if source.needsQueryOnly {
            try? db.execute(query: "PRAGMA query_only = OFF")
        }
    }
}
