/// SQLite's side of `RowStream`: an iteration reads on a connection of a pool's or queue's ``ConnectionPool``, a
/// batch at a time on the connection's queue.
extension RowStream {
    /// How many rows the connection reads and decodes at a time, at most: few enough that memory stays flat, enough
    /// that the trips to the connection's queue cost little next to the decoding.
    static var batchSize: Int { 64 }

    /// A stream of what `open` returns, on a connection of `source`. `open` runs on the connection's queue, in the
    /// stream's transaction, and makes a cursor with a statement of its own.
    init(source: StreamSource, open: @escaping @Sendable (Database) throws -> FetchCursor<Element>) {
        self.init { StreamIteration(source: source, open: open) }
    }
}

/// Where a stream reads: the connections it leases one from, and whether its transaction must refuse writes itself.
struct StreamSource: Sendable {
    let connections: ConnectionPool
    /// Whether the connection can write, so that the stream turns `PRAGMA query_only` on for its transaction: a
    /// queue's connection, not a pool's read-only readers.
    let needsQueryOnly: Bool
}

/// The streams of ``DatabasePool`` and ``DatabaseQueue``, written once: each public `stream` of theirs hands its
/// arguments to one of these, with its own connections.
extension StreamSource {
    /// The records of `request`, decoded as its model.
    func records<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record> {
        let select = RenderedSelect(request)
        return RowStream(source: self) { db in try db.requestCursor(Record.self, select, decoder: RowDecoder()) }
    }

    /// The rows of `request` decoded as `T` by their keys.
    func rows<T: Decodable & Sendable>(_ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder)
        -> RowStream<T>
    {
        let select = RenderedSelect(request)
        return RowStream(source: self) { db in try db.requestCursor(T.self, select, decoder: decoder) }
    }

    /// The values of a one-column `request`.
    func values<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ request: QueryRequest<some Model>)
        -> RowStream<T>
    {
        let select = RenderedSelect(request)
        return RowStream(source: self) { db in try db.scalarCursor(T.self, select) }
    }

    /// The rows of `sql` decoded as `T`; a one-column row decodes as a scalar.
    func rows<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder) -> RowStream<T> {
        RowStream(source: self) { db in try db.fetchCursor(T.self, sql, decoder: decoder) }
    }

    /// The values of a one-column `sql`.
    func values<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ sql: SQL) -> RowStream<T> {
        RowStream(source: self) { db in try db.fetchCursor(T.self, sql) }
    }

    /// The rows of `query` decoded as `T`, its parameters bound on the connection's queue when the iteration begins.
    func rows<T: Decodable & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)?, decoder: RowDecoder
    ) -> RowStream<T> {
        RowStream(source: self) { db in
            try db.fetchCursor(T.self, query: query, parameters: parameters, decoder: decoder)
        }
    }

    /// The values of a one-column `query`.
    func values<T: DatabaseValueConvertible & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)?
    ) -> RowStream<T> {
        RowStream(source: self) { db in try db.fetchCursor(T.self, query: query, parameters: parameters) }
    }
}

/// The consumer's side of one iteration: the leased connection, and the rows read but not yet taken.
///
/// Used by one task at a time, the one iterating (the iterator is not `Sendable`), and released when the iterator
/// is dropped, at which point an unfinished iteration gives its connection back.
private final class StreamIteration<Element: Sendable>: RowStreamIteration {
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

    func next(isolation actor: isolated (any Actor)?) async throws -> Element? {
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
