public import StrataCore

/// Streams: the rows of a query read as the consumer asks for them, on one connection and one snapshot.
///
/// Each stream is a ``RowStream``, the same type as on SQLite, whose documentation states what a stream guarantees.
extension PostgresPool {
    /// The rows of `request`, decoded as its model as the loop asks for them, on one connection and one snapshot.
    ///
    /// ```swift
    /// for try await note in pool.stream(Note.filter(Column("mood") == "happy").order(Column("id"))) {
    ///     try await response.write(note)
    /// }
    /// ```
    ///
    /// - **Memory stays flat however many rows there are**: postgres-nio asks the server for more rows only as the
    ///   loop reads them.
    /// - **An iteration sees one snapshot and refuses writes**: it runs, as a ``read(_:)`` does, in a
    ///   `REPEATABLE READ READ ONLY` transaction, on a replica when the pool has any.
    /// - **The connection goes back to the pool as soon as the loop ends**: at the last row, at an error, or when the
    ///   loop is left early by `break`, `return`, a thrown error or cancellation. A loop left early ends the
    ///   statement first (its last rows are read and dropped when they are few; it is cancelled on the server when
    ///   they are many), then rolls the read transaction back, so that the next request gets the connection clean.
    public func stream<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record> {
        makeStream { session in try await session.fetchCursor(request) }
    }

    /// The rows of `request` decoded as `T`, which reads the request's selection by its keys, streamed as
    /// `stream(_:)` streams a model.
    ///
    /// ```swift
    /// struct Headline: Decodable, Sendable { var id: Int64; var content: String }
    /// for try await headline in pool.stream(Headline.self, Note.select(Column("id"), Column("content"))) {
    ///     print(headline.content)
    /// }
    /// ```
    public func stream<T: Decodable & Sendable, Record: Model>(
        _ type: T.Type, _ request: QueryRequest<Record>, decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        let select = request.renderSelect(dialect: PostgresDialect())
        return makeStream { session in try await session.cursor(T.self, try session.statement(select), decoder: decoder)
        }
    }

    /// The rows of `sql` decoded as `T`, its interpolated values bound, streamed; a one-column row decodes as a
    /// scalar (`Int`, `String`, `Date`...).
    ///
    /// ```swift
    /// for try await note in pool.stream(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id") {
    ///     print(note.content)
    /// }
    /// ```
    public func stream<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        -> RowStream<T>
    {
        makeStream { session in try await session.fetchCursor(T.self, sql, decoder: decoder) }
    }

    /// The rows of `query` decoded as `T`, its named parameters from `parameters` (an `Encodable` value whose coding
    /// keys name them, or a dictionary), streamed.
    ///
    /// ```swift
    /// let notes = pool.stream(Note.self, query: "SELECT * FROM note WHERE content LIKE :q", parameters: ["q": "%swift%"])
    /// for try await note in notes { print(note.content) }
    /// ```
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil,
        decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        makeStream { session in
            try await session.fetchCursor(T.self, query: query, parameters: parameters, decoder: decoder)
        }
    }

    /// A stream whose iterations open their cursor with `open`, in a read transaction on a connection of the pool
    /// that runs reads.
    private func makeStream<Element: Decodable & Sendable>(
        opening open: @escaping @Sendable (PostgresSession) async throws -> PostgresCursor<Element>
    ) -> RowStream<Element> {
        RowStream { [self] in PostgresStreamIteration(pool: readPool(), open: open) }
    }
}

/// The consumer's side of one iteration of a PostgreSQL stream: the leased connection, its session and the cursor.
///
/// Used by one task at a time, the one iterating (the iterator is not `Sendable`), and released when the iterator is
/// dropped, at which point an unfinished iteration ends its session and gives its connection back.
final class PostgresStreamIteration<Element: Decodable & Sendable>: RowStreamIteration {
    /// An open cursor on the iteration's session.
    private struct Reading: Sendable {
        let session: PostgresSession
        /// The cursor's iterator: while it lives, the session keeps the rows for it.
        var rows: PostgresCursor<Element>.AsyncIterator
    }

    private enum State {
        /// No connection yet: nothing has been asked for.
        case notStarted
        /// The connection is leased, the transaction begun and the cursor open.
        case reading(Reading)
        /// Nothing more: `next()` returns nil.
        case finished
    }

    /// The connections of the server the stream reads from.
    private let pool: PostgresConnectionPool
    /// Opens the cursor on the iteration's session, in its transaction.
    private let open: @Sendable (PostgresSession) async throws -> PostgresCursor<Element>
    private var state = State.notStarted

    init(
        pool: PostgresConnectionPool,
        open: @escaping @Sendable (PostgresSession) async throws -> PostgresCursor<Element>
    ) {
        self.pool = pool
        self.open = open
    }

    deinit {
        // An iteration dropped unfinished: a `break` out of the loop, a thrown error, an abandoned iterator. Its
        // hold on the rows goes with it, so the session finds its result abandoned.
        if case .reading(let reading) = state {
            Task { [pool, session = reading.session] in await pool.endStream(session) }
        }
    }

    func next(isolation actor: isolated (any Actor)?) async throws -> Element? {
        if case .finished = state { return nil }
        if Task.isCancelled {
            await stop()
            throw CancellationError()
        }
        do {
            var reading: Reading
            switch state {
            case .finished: return nil
            case .notStarted: reading = try await begin()
            case .reading(let current): reading = current
            }
            guard let element = try await reading.rows.next() else {
                await stop()
                return nil
            }
            state = .reading(reading)
            return element
        } catch {
            await stop()
            throw error
        }
    }

    /// Leases a connection, begins the read transaction and opens the cursor. The snapshot is taken at the cursor's
    /// statement, which follows at once.
    private func begin(isolation actor: isolated (any Actor)? = #isolation) async throws -> Reading {
        let session = try await pool.beginStream()
        do {
            let cursor = try await open(session)
            let reading = Reading(session: session, rows: cursor.makeAsyncIterator())
            state = .reading(reading)
            return reading
        } catch {
            state = .finished
            await finish(session)
            throw error
        }
    }

    /// Ends the iteration: ends the session (and the statement, when its rows were not all read) and gives the
    /// connection back.
    private func stop(isolation actor: isolated (any Actor)? = #isolation) async {
        guard case .reading(let reading) = state else {
            state = .finished
            return
        }
        state = .finished
        await finish(reading.session)
    }

    /// Ends `session` and gives its connection back, in a task of its own, which the caller's cancellation does not
    /// reach: ending the session runs statements that must run.
    private func finish(
        _ session: PostgresSession, isolation actor: isolated (any Actor)? = #isolation
    ) async {
        await Task { [pool] in await pool.endStream(session) }.value
    }
}

extension PostgresConnectionPool {
    /// A session for a stream, on a leased connection, in a `REPEATABLE READ READ ONLY` transaction that the session
    /// rolls back when it ends (``endStream(_:)``).
    func beginStream() async throws -> PostgresSession {
        let session = try await beginSession()
        do {
            try await session.beginReadBlock()
        } catch {
            await endStream(session)
            throw error
        }
        return session
    }

    /// Ends a stream's session (its statement, its transaction) and gives its connection back.
    func endStream(_ session: PostgresSession) async {
        let reusable = await session.end()
        endSession(session, reusable: reusable)
    }
}
