/// SQL with its values bound, never spliced: what every call that runs SQL takes.
///
/// Write it with string interpolation: each interpolated value is a bound parameter, and `\(identifier:)` quotes a
/// table or column name. Or give SQL text with `:name` parameters and their values.
///
/// ```swift
/// let mood = "happy"
/// let happy = try db.fetchAll(Note.self, "SELECT * FROM note WHERE mood = \(mood) ORDER BY id")
/// let count = try db.fetchOne(Int.self, "SELECT count(*) FROM \(identifier: table)")
/// try db.execute(SQL(sql: "UPDATE note SET mood = :mood WHERE id = :id", parameters: ["mood": "calm", "id": 1]))
/// ```
///
/// - **Values are parameters.** `\(value)` binds the value (any ``DatabaseValueConvertible``; nil binds NULL), so a
///   value from a user can never change what the SQL does.
/// - **The text is yours.** What is written between the interpolations is SQL as written; a positional `?` in it
///   has no value and throws on SQLite (PostgreSQL leaves `?` to its jsonb operators). `SQL(sql:parameters:)`
///   takes `:name` parameters with named values, or `?` with positional ones.
/// - **Pieces compose.** `\(other)` splices another `SQL` with its values.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// One piece of the SQL.
    enum Piece: Sendable {
        /// SQL text with the values of its own parameters (`:name`, or `?` in order).
        case text(String, SQLArguments)
        /// A bound value.
        case value(SQLValue)
        /// A quoted identifier.
        case identifier(String)
    }

    var pieces: [Piece]

    /// SQL text with `:name` parameters bound by name (`["id": 1]`), or `?` parameters bound in order (`[1, 2]`).
    ///
    /// ```swift
    /// SQL(sql: "SELECT * FROM note WHERE mood = :mood", parameters: ["mood": "happy"])
    /// ```
    public init(sql: String, parameters: SQLArguments = [:]) {
        pieces = [.text(sql, parameters)]
    }

    public init(stringLiteral value: String) {
        pieces = [.text(value, [:])]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// The SQL as written, with `?` where a value is bound: for logs and errors, never the values.
    public var description: String {
        pieces.map { piece in
            switch piece {
            case .text(let text, _): text
            case .value: "?"
            case .identifier(let name): "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
        }.joined()
    }

    /// The interpolation that builds an ``SQL``: literal text stays SQL, interpolated values are bound.
    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            pieces.append(.text(literal, [:]))
        }

        /// A bound value; nil binds NULL.
        public mutating func appendInterpolation(_ value: (any DatabaseValueConvertible & Sendable)?) {
            pieces.append(.value(SQLValue(value ?? DatabaseValue.null)))
        }

        /// A table or column name, quoted with embedded `"` doubled.
        public mutating func appendInterpolation(identifier: String) {
            pieces.append(.identifier(identifier))
        }

        /// Another piece of SQL, with its values.
        public mutating func appendInterpolation(_ sql: SQL) {
            pieces.append(contentsOf: sql.pieces)
        }
    }

    /// The SQL in `dialect`, as the backend that speaks it prepares it, and the values it binds.
    ///
    /// ```swift
    /// let mood = "happy"
    /// let query = try SQL("SELECT * FROM \(identifier: "note") WHERE mood = \(mood)").rendered(for: SQLiteDialect())
    /// query.sql      // SELECT * FROM "note" WHERE mood = ?
    /// query.values   // ["happy"]
    /// ```
    ///
    /// - Throws: ``DatabaseError`` naming what cannot run, with the SQL: a `?` without a value, a value
    ///   interpolated inside quotes, an identifier with a NUL character.
    public func rendered(for dialect: some SQLDialect) throws -> RenderedSQL {
        let (sql, rendered, failure) = render(dialect: dialect)
        if let failure { throw failure.withSQL(sql) }
        return rendered
    }

    /// The SQL in `dialect`, with its values in placeholder order and its named values, and the failure to throw
    /// instead of running it (a `?` without a value, an identifier with a NUL character).
    package func render(dialect: any SQLDialect) -> (sql: String, rendered: RenderedSQL, failure: DatabaseError?) {
        var renderer = SQLRenderer(dialect: dialect, ownTable: nil)
        renderer.append(self)
        return (renderer.sql, renderer.rendered, renderer.failure)
    }
}

extension SQLRenderer {
    /// `sql`'s pieces: its text as written, its values bound, its identifiers quoted.
    ///
    /// A value or name interpolated inside a string, a quoted name or a comment of the text (`'\(mood)'`) fails
    /// the SQL: the database would read the placeholder there as text, and the value would never be compared.
    package mutating func append(_ sql: SQL) {
        var quoted = false
        for piece in sql.pieces {
            switch piece {
            case .text(let text, let arguments):
                quoted = appendText(text, arguments)
            case .value(let value):
                if quoted { failInterpolationInsideQuotes() }
                appendValue(value)
                quoted = false
            case .identifier(let name):
                if quoted { failInterpolationInsideQuotes() }
                appendIdentifier(name)
                quoted = false
            }
        }
    }

    private mutating func failInterpolationInsideQuotes() {
        fail(
            "a value is interpolated inside a quoted string, a quoted name or a comment of the SQL, where it "
                + "would be read as text: write it outside the quotes (`mood = \\(mood)`, not `mood = '\\(mood)'`)")
    }
}
