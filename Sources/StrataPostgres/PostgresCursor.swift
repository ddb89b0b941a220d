import Foundation
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
/// **A write is read to its end before the cursor is returned**, as on SQLite. The rows of an `INSERT`, `UPDATE`,
/// `DELETE` or `MERGE` with a `RETURNING` clause are decoded at once, as `fetchAll` decodes them: a row that does not
/// decode leaves nothing written, and `fetchCursor` throws its error.
///
/// **Leaving the loop early costs nothing on the connection.** The session's next statement would otherwise wait
/// for every remaining row: a left cursor's last rows are read and dropped when they are few, and its statement is
/// cancelled on the server when they are many. A cursor whose loop runs another statement on the session reads its
/// remaining rows into memory first, and goes on with them.
public struct PostgresCursor<Element: Decodable>: AsyncSequence, Sendable {
    /// Where the rows come from.
    private let source: Source
    /// The session the rows belong to, which must still be open when a row is read.
    let session: PostgresSession
    /// The SQL, for errors.
    let sql: String

    /// The rows of a cursor or of one of its iterators.
    enum Source: Sendable {
        /// Rows decoded one at a time as they arrive, kept by the session too, with the columns read from the first
        /// row (nil before it).
        case arriving(PostgresResultHold, PostgresRowDecoder, PostgresColumns?)
        /// The rows of a statement that writes, read and decoded before the cursor was returned.
        case decoded(PostgresDecodedRows<Element>)
    }

    init(result: PostgresOpenResult, decoder: PostgresRowDecoder, session: PostgresSession, sql: String) {
        source = .arriving(PostgresResultHold(result, iterator: false), decoder, nil)
        self.session = session
        self.sql = sql
    }

    /// A cursor over the rows of a write, already decoded (see `PostgresSession.cursor`).
    init(decoded elements: [Element], session: PostgresSession, sql: String) {
        source = .decoded(PostgresDecodedRows(elements))
        self.session = session
        self.sql = sql
    }

    /// An iterator over the rows, decoded.
    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .arriving(let hold, let decoder, _):
            AsyncIterator(
                source: .arriving(PostgresResultHold(hold.result, iterator: true), decoder, nil), session: session,
                sql: sql)
        case .decoded:
            AsyncIterator(source: source, session: session, sql: sql)
        }
    }

    /// Reads and decodes the next row.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// The rows; while the iterator lives, the session keeps those that arrive for it.
        private var source: Source
        let session: PostgresSession
        let sql: String

        init(source: Source, session: PostgresSession, sql: String) {
            self.source = source
            self.session = session
            self.sql = sql
        }

        /// The next row decoded, or nil after the last.
        ///
        /// - Throws: ``DatabaseError`` when the query fails while rows arrive; a `DecodingError` for a row that does
        ///   not decode as `Element`; ``DatabaseError/Code/connectionClosed`` after the session's body returned.
        public mutating func next() async throws -> Element? {
            switch source {
            case .decoded(let rows):
                try session.checkOpen(sql: sql)
                return rows.next()
            case .arriving(let hold, let decoder, let columns):
                guard let row = try await session.next(of: hold.result, sql: sql) else { return nil }
                let columns = columns ?? PostgresColumns(row: row)
                source = .arriving(hold, decoder, columns)
                return try decoder.decode(Element.self, from: row, columns: columns)
            }
        }
    }
}

extension PostgresCursor.AsyncIterator: Sendable where Element: Sendable {}

/// The rows of a write, decoded, handed out one at a time to the iterators of its cursor: each value goes to one of
/// them only.
///
/// `@unchecked Sendable`: `elements` and `position` are read and written under `lock`.
final class PostgresDecodedRows<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private let elements: [Element]
    private var position = 0

    init(_ elements: [Element]) {
        self.elements = elements
    }

    /// The next value, or nil after the last.
    func next() -> Element? {
        lock.withLock {
            guard position < elements.count else { return nil }
            defer { position += 1 }
            return elements[position]
        }
    }
}
