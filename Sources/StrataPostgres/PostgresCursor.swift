internal import PostgresNIO
internal import StrataCore

/// The rows of a query decoded one at a time as they arrive: an `AsyncSequence` read inside the session's body.
///
/// ```swift
/// try await pool.read { db in
///     for try await note in try await db.fetchCursor(Note.all()) { print(note.content) }
/// }
/// ```
///
/// Reading it after the body of its `read` or `write` returned throws ``DatabaseError/Code/connectionClosed``:
/// the connection belongs to the pool again.
public struct PostgresCursor<Element: Decodable>: AsyncSequence, Sendable {
    /// The rows as postgres-nio streams them.
    let rows: PostgresRowSequence
    /// How each row is decoded.
    let decoder: PostgresRowDecoder
    /// The session the rows belong to, which must still be open when a row is read.
    let session: PostgresSession
    /// The SQL, for errors.
    let sql: String

    /// An iterator over the rows, decoded.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(rows: rows.makeAsyncIterator(), decoder: decoder, session: session, sql: sql)
    }

    /// Reads and decodes the next row.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var rows: PostgresRowSequence.AsyncIterator
        let decoder: PostgresRowDecoder
        let session: PostgresSession
        let sql: String
        var columns: PostgresColumns?

        init(
            rows: PostgresRowSequence.AsyncIterator, decoder: PostgresRowDecoder, session: PostgresSession, sql: String
        ) {
            self.rows = rows
            self.decoder = decoder
            self.session = session
            self.sql = sql
        }

        /// The next row decoded, or nil after the last.
        ///
        /// - Throws: ``PostgresError`` when the query fails while rows arrive; a `DecodingError` for a row that does
        ///   not decode as `Element`.
        public mutating func next() async throws -> Element? {
            try session.checkOpen(sql: sql)
            let row: PostgresRow?
            do {
                row = try await rows.next()
            } catch {
                throw PostgresError.translating(error, sql: sql, endpoint: session.endpoint)
            }
            guard let row else { return nil }
            let columns = self.columns ?? PostgresColumns(row: row)
            self.columns = columns
            return try decoder.decode(Element.self, from: row, columns: columns)
        }
    }
}
