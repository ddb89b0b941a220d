/// Streams: the rows of a query read a few at a time on one connection of a `DatabasePool` (a reader) or a
/// `DatabaseQueue` (its connection), as the consumer asks for them. Written once for both.
///
/// Each stream is a `RowStream`, whose documentation states what a stream guarantees. **On a `DatabaseQueue`, a
/// stream being iterated holds the queue's only connection: every other read and write waits until it ends**, so a
/// `read` or `write` on the same queue inside the loop waits forever.
extension DatabaseReader where Session == Database {
    /// The rows of `request`, decoded as its model a few at a time on one connection, on one snapshot, as the loop
    /// asks for them.
    ///
    /// ```swift
    /// for try await note in pool.stream(Note.filter(Column("mood") == "happy").order(Column("id"))) {
    ///     try await response.write(note)
    /// }
    /// ```
    ///
    /// **Memory stays flat however many rows there are**, and **the connection goes back to the pool or queue as
    /// soon as the loop ends**, by `break`, `return`, a thrown error or cancellation: see `RowStream`. On a queue,
    /// writes wait meanwhile.
    public func stream<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record> {
        withStreamSource { $0.records(request) }
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
    @_disfavoredOverload
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        withStreamSource { $0.rows(type, request, decoder: decoder) }
    }

    /// The values of a one-column `request` as `T`, streamed.
    ///
    /// ```swift
    /// for try await id in pool.stream(Int64.self, Note.select(Column("id"))) { print(id) }
    /// ```
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func stream<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ request: QueryRequest<some Model>)
        -> RowStream<T>
    {
        withStreamSource { $0.values(type, request) }
    }

    /// The rows of `sql` decoded as `T`, its interpolated values bound, streamed; a one-column row decodes as a
    /// scalar.
    ///
    /// ```swift
    /// for try await note in queue.stream(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id") {
    ///     print(note.content)
    /// }
    /// ```
    @_disfavoredOverload
    public func stream<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        -> RowStream<T>
    {
        withStreamSource { $0.rows(type, sql, decoder: decoder) }
    }

    /// The values of a one-column `sql` as `T`, streamed.
    ///
    /// ```swift
    /// for try await content in pool.stream(String.self, "SELECT content FROM note WHERE mood = \(mood)") {
    ///     print(content)
    /// }
    /// ```
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func stream<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ sql: SQL) -> RowStream<T> {
        withStreamSource { $0.values(type, sql) }
    }

    /// The rows of `query` decoded as `T`, streamed.
    ///
    /// ```swift
    /// let notes = pool.stream(Note.self, query: "SELECT * FROM note WHERE content LIKE :q", parameters: ["q": "%swift%"])
    /// for try await note in notes { print(note.content) }
    /// ```
    ///
    /// The parameters are bound on the connection's queue when the iteration begins, so they are `Sendable`.
    @_disfavoredOverload
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil,
        decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        withStreamSource { $0.rows(type, query: query, parameters: parameters, decoder: decoder) }
    }

    /// The values of a one-column `query` as `T`, streamed.
    ///
    /// ```swift
    /// for try await content in queue.stream(String.self, query: "SELECT content FROM note") { print(content) }
    /// ```
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func stream<T: DatabaseValueConvertible & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil
    ) -> RowStream<T> {
        withStreamSource { $0.values(type, query: query, parameters: parameters) }
    }

    /// The stream `make` makes on this reader's connections: a `DatabasePool`'s readers or a `DatabaseQueue`'s
    /// connection. Another reader whose sessions are `Database` has no connections of its own to stream on: its
    /// stream throws when iterated.
    private func withStreamSource<Element: Sendable>(_ make: (StreamSource) -> RowStream<Element>)
        -> RowStream<Element>
    {
        if let reader = self as? any StreamingReader { return make(reader.streamSource) }
        return RowStream { FailedStreamIteration() }
    }
}

/// A reader that streams on connections of its own: `DatabasePool` and `DatabaseQueue`.
protocol StreamingReader {
    /// The connections a stream leases one from.
    var streamSource: StreamSource { get }
}

/// The iteration of a stream on a reader that has no connections to stream on: it throws at the first row.
private final class FailedStreamIteration<Element: Sendable>: RowStreamIteration {
    private var failed = false

    func next(isolation actor: isolated (any Actor)?) async throws -> Element? {
        guard !failed else { return nil }
        failed = true
        throw DatabaseError(
            code: .invalidArgument,
            message: "stream needs a DatabasePool or DatabaseQueue: this reader has no connections to stream on")
    }
}
