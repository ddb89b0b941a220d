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
///
/// **Leaving the loop early costs nothing on the connection.** The session's next statement would otherwise wait
/// for every remaining row: a left cursor's last rows are read and dropped when they are few, and its statement is
/// cancelled on the server when they are many (a statement that changes data, `UPDATE ... RETURNING`, runs to its
/// end). A cursor whose loop runs another statement on the session reads its remaining rows into memory first,
/// and goes on with them.
public struct PostgresCursor<Element: Decodable>: AsyncSequence, Sendable {
    /// The rows, kept by the session too.
    private let hold: PostgresResultHold
    /// How each row is decoded.
    let decoder: PostgresRowDecoder
    /// The session the rows belong to, which must still be open when a row is read.
    let session: PostgresSession
    /// The SQL, for errors.
    let sql: String

    init(result: PostgresOpenResult, decoder: PostgresRowDecoder, session: PostgresSession, sql: String) {
        hold = PostgresResultHold(result, iterator: false)
        self.decoder = decoder
        self.session = session
        self.sql = sql
    }

    /// An iterator over the rows, decoded.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            hold: PostgresResultHold(hold.result, iterator: true), decoder: decoder, session: session, sql: sql)
    }

    /// Reads and decodes the next row.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The rows; while the iterator lives, the session keeps them for it.
        private let hold: PostgresResultHold
        let decoder: PostgresRowDecoder
        let session: PostgresSession
        let sql: String
        var columns: PostgresColumns?

        init(hold: PostgresResultHold, decoder: PostgresRowDecoder, session: PostgresSession, sql: String) {
            self.hold = hold
            self.decoder = decoder
            self.session = session
            self.sql = sql
        }

        /// The next row decoded, or nil after the last.
        ///
        /// - Throws: ``DatabaseError`` when the query fails while rows arrive; a `DecodingError` for a row that does
        ///   not decode as `Element`; ``DatabaseError/Code/connectionClosed`` after the session's body returned.
        public mutating func next() async throws -> Element? {
            guard
                let (element, columns) = try await PostgresCursor.next(
                    of: hold, columns: columns, decoder: decoder, session: session, sql: sql)
            else { return nil }
            self.columns = columns
            return element
        }
    }

    /// A hold on the rows for a reader of its own (a stream's iteration), which counts as an iterator.
    func makeIteratorHold() -> PostgresResultHold {
        PostgresResultHold(hold.result, iterator: true)
    }

    /// The next row of `hold`'s result decoded, with the columns read from the first row (`columns`, or this row's
    /// when it is the first); nil after the last.
    static func next(
        of hold: PostgresResultHold, columns: PostgresColumns?, decoder: PostgresRowDecoder, session: PostgresSession,
        sql: String
    ) async throws -> (Element, PostgresColumns)? {
        guard let row = try await session.next(of: hold.result, sql: sql) else { return nil }
        let columns = columns ?? PostgresColumns(row: row)
        do {
            return (try decoder.decode(Element.self, from: row, columns: columns), columns)
        } catch {
            // A row of a write that does not decode fails the block the write runs in, as in `undoingWrite`.
            if !hold.result.onlyReads { session.state.withLock { $0.writtenRowsFailed(error) } }
            throw error
        }
    }
}
