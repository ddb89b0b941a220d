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
/// finalized when the cursor is released.
public final class FetchCursor<Element> {
    let statement: Statement
    private let decode: (Statement) throws -> Element

    init(statement: Statement, decode: @escaping (Statement) throws -> Element) {
        self.statement = statement
        self.decode = decode
    }

    /// The next element, or nil when the rows are exhausted.
    ///
    /// - Throws: ``DatabaseError`` when stepping fails, `DecodingError` when a row does not decode.
    public func next() throws -> Element? {
        guard try statement.next() != nil else { return nil }
        return try decode(statement)
    }

    /// Calls `body` with every remaining element; stops at the first error.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }
}
