/// Streams: the rows of a query read a few at a time on the queue's connection, as the consumer asks for them.
///
/// Each stream is a `RowStream`, whose documentation states what a stream guarantees. **A stream being iterated
/// holds the queue's only connection: every other read and write waits until it ends**, so a `read` or `write` on the
/// same queue inside the loop waits forever.
extension DatabaseQueue {
    /// The rows of `request`, decoded as its model a few at a time, on one snapshot, as the loop asks for them.
    ///
    /// ```swift
    /// for try await note in queue.stream(Note.all().order(Column("id"))) {
    ///     print(note.content)
    /// }
    /// ```
    ///
    /// **Memory stays flat however many rows there are**, and **the connection goes back to the queue as soon as the
    /// loop ends**, by `break`, `return`, a thrown error or cancellation: see `RowStream`. Writes wait meanwhile.
    public func stream<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record> {
        streamSource.records(request)
    }

    /// The rows of `request` decoded as `T`, which reads the request's selection by its keys, streamed as
    /// `stream(_:)` streams a model.
    ///
    /// ```swift
    /// struct Headline: Decodable, Sendable { var id: Int64; var content: String }
    /// for try await headline in queue.stream(Headline.self, Note.select(Column("id"), Column("content"))) {
    ///     print(headline.content)
    /// }
    /// ```
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        streamSource.rows(type, request, decoder: decoder)
    }

    /// The values of a one-column `request` as `T`, streamed.
    ///
    /// ```swift
    /// for try await id in queue.stream(Int64.self, Note.select(Column("id"))) { print(id) }
    /// ```
    public func stream<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ request: QueryRequest<some Model>)
        -> RowStream<T>
    {
        streamSource.values(type, request)
    }

    /// The values of a one-column `request` as `T`, streamed, for types both `Decodable` and storable (`Int`,
    /// `String`...).
    public func stream<T: Decodable & DatabaseValueConvertible & Sendable>(
        _ type: T.Type, _ request: QueryRequest<some Model>
    ) -> RowStream<T> {
        streamSource.values(type, request)
    }

    /// The rows of `sql` decoded as `T`, its interpolated values bound, streamed; a one-column row decodes as a
    /// scalar.
    ///
    /// ```swift
    /// for try await note in queue.stream(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id") {
    ///     print(note.content)
    /// }
    /// ```
    public func stream<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL, decoder: RowDecoder = RowDecoder())
        -> RowStream<T>
    {
        streamSource.rows(type, sql, decoder: decoder)
    }

    /// The values of a one-column `sql` as `T`, streamed.
    ///
    /// ```swift
    /// for try await content in queue.stream(String.self, "SELECT content FROM note WHERE mood = \(mood)") {
    ///     print(content)
    /// }
    /// ```
    public func stream<T: DatabaseValueConvertible & Sendable>(_ type: T.Type, _ sql: SQL) -> RowStream<T> {
        streamSource.values(type, sql)
    }

    /// The values of a one-column `sql` as `T`, streamed, for types both `Decodable` and storable (`Int`,
    /// `String`...).
    public func stream<T: Decodable & DatabaseValueConvertible & Sendable>(_ type: T.Type, _ sql: SQL)
        -> RowStream<T>
    {
        streamSource.values(type, sql)
    }

    /// The rows of `query` decoded as `T`, streamed.
    ///
    /// ```swift
    /// let notes = queue.stream(Note.self, query: "SELECT * FROM note WHERE content LIKE :q", parameters: ["q": "%swift%"])
    /// for try await note in notes { print(note.content) }
    /// ```
    ///
    /// The parameters are bound on the queue's connection when the iteration begins, so they are `Sendable`.
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil,
        decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        streamSource.rows(type, query: query, parameters: parameters, decoder: decoder)
    }

    /// The values of a one-column `query` as `T`, streamed.
    ///
    /// ```swift
    /// for try await content in queue.stream(String.self, query: "SELECT content FROM note") { print(content) }
    /// ```
    public func stream<T: DatabaseValueConvertible & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil
    ) -> RowStream<T> {
        streamSource.values(type, query: query, parameters: parameters)
    }

    /// The values of a one-column `query` as `T`, streamed, for types both `Decodable` and storable (`Int`,
    /// `String`...).
    public func stream<T: Decodable & DatabaseValueConvertible & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil
    ) -> RowStream<T> {
        streamSource.values(type, query: query, parameters: parameters)
    }

    /// The queue's connection, which can write: the stream's transaction turns `PRAGMA query_only` on, as a read
    /// does.
    private var streamSource: StreamSource {
        StreamSource(connections: connection, needsQueryOnly: true)
    }

    /// Whether the connection is free: for tests that check a stream gave it back.
    var isConnectionIdle: Bool {
        connection.idleCount == 1
    }
}
