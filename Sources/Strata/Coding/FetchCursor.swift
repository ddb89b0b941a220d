/// A lazy, typed cursor: each call to ``next()`` steps the statement and decodes one row.
///
/// Memory stays flat however many rows the query returns: only the current row is decoded.
///
/// ```swift
/// let notes = try db.fetchCursor(Note.self, query: "SELECT * FROM note ORDER BY id")
/// while let note = try notes.next() {
///     print(note.content)
/// }
/// ```
///
/// The cursor owns its own prepared statement; stopping early is fine, and the statement is
/// finalized when the cursor is released. The rows of a statement that writes (`INSERT ... RETURNING`)
/// are read when the cursor is made, so that the write ends at once.
public final class FetchCursor<Element> {
    private let nextElement: () throws -> Element?

    /// A lazy cursor: each ``next()`` steps `statement` and decodes its row.
    init(statement: Statement, decode: @escaping (Statement) throws -> Element) {
        nextElement = { try statement.advance() ? try decode(statement) : nil }
    }

    /// A cursor over elements already read.
    init(elements: [Element]) {
        var iterator = elements.makeIterator()
        nextElement = { iterator.next() }
    }

    /// The next element, or nil when the rows are exhausted.
    ///
    /// - Throws: `DatabaseError` when stepping fails, `DecodingError` when a row does not decode.
    public func next() throws -> Element? {
        try nextElement()
    }

    /// Calls `body` with every remaining element; stops at the first error.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }
}

/// A cursor is also read with `for try await`, as a PostgreSQL cursor is, so that code reading one reads both:
///
/// ```swift
/// for try await note in try db.fetchCursor(Note.self, query: "SELECT * FROM note ORDER BY id") {
///     print(note.content)
/// }
/// ```
///
/// Each element is read as ``FetchCursor/next()`` reads it, on the calling task.
extension FetchCursor: AsyncSequence {
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(cursor: self)
    }

    /// Reads the cursor's elements in turn.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let cursor: FetchCursor

        public mutating func next() async throws -> Element? {
            try cursor.next()
        }
    }
}
