/// Streams: the rows of a query read a few at a time on one reader, as the consumer asks for them.
///
/// Each stream is a `RowStream`, whose documentation states what a stream guarantees.
extension DatabasePool {
    /// The rows of `request`, decoded as its model a few at a time on one reader, on one snapshot, as the loop asks
    /// for them.
    ///
    /// ```swift
    /// for try await note in pool.stream(Note.filter(Column("mood") == "happy").order(Column("id"))) {
    ///     try await response.write(note)
    /// }
    /// ```
    ///
    /// **Memory stays flat however many rows there are**, and **the reader goes back to the pool as soon as the loop
    /// ends**, by `break`, `return`, a thrown error or cancellation: see `RowStream`.
    public func stream<Record: Model & Sendable>(_ request: QueryRequest<Record>) -> RowStream<Record> {
        streamSource.records(request)
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
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        streamSource.rows(type, request, decoder: decoder)
    }

    /// The values of a one-column `request` as `T`, streamed.
    ///
    /// ```swift
    /// for try await id in pool.stream(Int64.self, Note.select(Column("id"))) { print(id) }
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
    /// for try await note in pool.stream(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id") {
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
    /// for try await content in pool.stream(String.self, "SELECT content FROM note WHERE mood = \(mood)") {
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
    /// let notes = pool.stream(Note.self, query: "SELECT * FROM note WHERE content LIKE :q", parameters: ["q": "%swift%"])
    /// for try await note in notes { print(note.content) }
    /// ```
    ///
    /// The parameters are bound on the reader's queue when the iteration begins, so they are `Sendable`.
    public func stream<T: Decodable & Sendable>(
        _ type: T.Type, query: String, parameters: (any Encodable & Sendable)? = nil,
        decoder: RowDecoder = RowDecoder()
    ) -> RowStream<T> {
        streamSource.rows(type, query: query, parameters: parameters, decoder: decoder)
    }

    /// The values of a one-column `query` as `T`, streamed.
    ///
    /// ```swift
    /// for try await content in pool.stream(String.self, query: "SELECT content FROM note") { print(content) }
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

    /// The readers, which open as read-only: the stream's transaction needs nothing more to refuse writes.
    private var streamSource: StreamSource {
        StreamSource(connections: readers, needsQueryOnly: false)
    }

    /// How many readers are free: for tests that check a stream gave its reader back.
    var idleReaderCount: Int {
        readers.idleCount
    }

    /// How many tasks wait for a reader, reads and closes: for tests that need work queued before they go on.
    var readerWaitingCount: Int {
        readers.waitingCount
    }
}
