internal import Foundation

/// How a backend spells what differs between SQL dialects: requests, expressions and records render through it and
/// never touch a database API, so a backend is a dialect and a driver, not a fork of the library.
///
/// Strata's backends each have one: `SQLiteDialect` (in Strata, whose `request.sql` shows SQLite's text) and
/// `PostgresDialect` (in StrataPostgres). Give one to a request's `sql(for:)` to see the SQL that request runs on
/// that backend:
///
/// ```swift
/// let request = Note.filter(Column("mood") == "happy").order(Column("createdAt").desc).limit(10)
/// request.sql(for: SQLiteDialect())
/// // SELECT "note".* FROM "note" WHERE "note"."mood" = ? ORDER BY "note"."createdAt" DESC LIMIT ?
/// request.sql(for: PostgresDialect())
/// // SELECT "note".* FROM "note" WHERE "note"."mood" = $1 ORDER BY "note"."createdAt" DESC NULLS LAST LIMIT $2
/// ```
///
/// A third backend writes a conforming type: each requirement is one thing the SQL standard leaves to the
/// database. What every dialect shares is written once and is not a requirement: identifiers in double quotes with
/// embedded quotes doubled, values always bound (never spliced into the text), `IN ()` written as `(1 = 0)`.
public protocol SQLDialect: Sendable {
    /// The placeholder of the `index`-th bound value (from 1): `?` in SQLite, `$1` in PostgreSQL.
    func placeholder(_ index: Int) -> String

    /// The placeholder of the parameter `name`, bound by name: `:name` in both of Strata's dialects. A dialect whose
    /// database has no named parameters numbers them in ``statementText(_:positionalValues:)``.
    func namedPlaceholder(_ name: String) -> String

    /// What follows an `INSERT` to update the row whose `conflictColumn` (quoted) already holds the value:
    /// `ON CONFLICT ("id") DO UPDATE SET "a" = excluded."a"` for the quoted `columns`, or `DO NOTHING` when there are
    /// none. Begins with a space.
    func upsertClause(conflictColumn: String, columns: [String]) -> String

    /// What follows an `INSERT`, `UPDATE` or `DELETE` to return the rows it wrote: ` RETURNING *`.
    var returningAllColumns: String { get }

    /// What a scanner of raw SQL fragments in this dialect skips (strings, quoted identifiers, comments) and which
    /// placeholders it reads: the nearer of SQLite's and PostgreSQL's syntax.
    var syntax: SQLSyntax { get }

    /// How `like(_:)` matches as SQLite's `LIKE` does (ASCII letters case-insensitively, no escape character unless
    /// one is given): the operator, a collation for the matched text (nil for none), and the `ESCAPE` to write when
    /// the request gives none (nil for none).
    var like: (operator: String, collation: String?, defaultEscape: String?) { get }

    /// ` COLLATE name` for `collation`, or nil when the dialect compares that way already (as PostgreSQL compares a
    /// `numeric` column by value without ``SQLCollation/decimal``).
    func collate(_ collation: SQLCollation) -> String?

    /// What follows an `ORDER BY` term so that NULL sorts first ascending and last descending, as in SQLite: empty
    /// in SQLite, ` NULLS FIRST` / ` NULLS LAST` in PostgreSQL. Not asked for a term that is never NULL (the
    /// request's model's primary key), so that the term can be read from an index.
    func nullsOrder(descending: Bool) -> String

    /// The text the backend sends for `sql`, which this dialect's renderer wrote with `positionalValues` values at
    /// its ``placeholder(_:)``s, then the named parameters of raw fragments at their ``namedPlaceholder(_:)``s.
    ///
    /// `sql` as it is by default. PostgreSQL, which has no named parameters, numbers each name `$n` after the
    /// positional values. A request's `sql(for:)` is this text.
    ///
    /// - Throws: ``DatabaseError`` when the text cannot be sent (a placeholder without a value); the request then
    ///   throws the same error when it runs.
    func statementText(_ sql: String, positionalValues: Int) throws -> String
}

extension SQLDialect {
    /// `sql` as it is: the database reads the placeholders the dialect writes.
    public func statementText(_ sql: String, positionalValues: Int) throws -> String { sql }

    /// `name` as an identifier in double quotes, with embedded quotes doubled: `a"b` is `"a""b"`, the SQL
    /// standard's quoting, which SQLite and PostgreSQL share.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for a name with a NUL character, which would cut the SQL short.
    package func quote(_ name: String) throws -> String {
        guard !name.unicodeScalars.contains("\u{0}") else {
            throw DatabaseError(code: .invalidArgument, message: "an SQL identifier cannot contain a NUL character")
        }
        return quotedIdentifier(name)
    }
}

/// `name` in double quotes, with embedded quotes doubled, whatever it holds: ``SQLDialect/quote(_:)`` refuses a NUL
/// character before it comes here.
package func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// SQL in one dialect, as a backend prepares it, and the values it binds there: what an ``SQL`` value
/// (``SQL/rendered(for:)``) or a request (``QueryRequest/rendered(for:)``) gives the backend that runs it. No value
/// is ever in the text.
///
/// ```swift
/// let request = Note.filter(Column("mood") == "happy").limit(10)
/// let select = try request.rendered(for: SQLiteDialect())
/// select.sql      // SELECT "note".* FROM "note" WHERE "note"."mood" = ? LIMIT ?
/// select.values   // ["happy", 10]
/// ```
public struct RenderedSQL: Sendable {
    /// The text: the dialect's ``SQLDialect/placeholder(_:)`` for each of ``values``, and the `:name` of each of
    /// ``namedValues`` as the SQL wrote it (in a raw fragment, or `SQL(sql:parameters:)`). A backend sends
    /// ``SQLDialect/statementText(_:positionalValues:)`` of it, which numbers the names for a database that has
    /// none.
    public package(set) var sql: String
    package var positional: [SQLValue]
    package var named: [String: SQLValue]

    /// The value of each ``SQLDialect/placeholder(_:)`` of ``sql``, in order: `values[0]` is placeholder 1.
    public var values: [any DatabaseValueConvertible & Sendable] { positional.map(\.value) }

    /// The value of each named parameter of ``sql``, by its name without the colon.
    public var namedValues: [String: any DatabaseValueConvertible & Sendable] { named.mapValues(\.value) }

    package init(sql: String, positional: [SQLValue], named: [String: SQLValue]) {
        self.sql = sql
        self.positional = positional
        self.named = named
    }

    /// Whether `execute` runs this as a script, each of its statements in turn: it binds no values, and has a `;`
    /// (maybe only one at its end, or in a string: the backend reads the statements out of it).
    package var isScript: Bool {
        positional.isEmpty && named.isEmpty && sql.utf8.contains(UInt8(ascii: ";"))
    }
}

/// Builds SQL text and collects its bound values. A failure (an identifier with a NUL character, two raw
/// fragments giving one name two values, a negative limit) is kept and thrown when the request runs.
package struct SQLRenderer {
    package let dialect: any SQLDialect
    /// The quoted name that qualifies a column without a table: the request's own table.
    package var ownTable: String?
    /// The quoted alias of each joined model's table.
    package var aliases: [ObjectIdentifier: String] = [:]

    package private(set) var sql = ""
    package private(set) var positional: [SQLValue] = []
    package private(set) var named: [String: SQLValue] = [:]
    package private(set) var failure: DatabaseError?

    package init(dialect: any SQLDialect, ownTable: String?) {
        self.dialect = dialect
        self.ownTable = ownTable
    }

    package var rendered: RenderedSQL {
        RenderedSQL(sql: sql, positional: positional, named: named)
    }

    package mutating func append(_ text: String) {
        sql += text
    }

    package mutating func fail(_ message: String, code: DatabaseError.Code = .invalidArgument) {
        if failure == nil { failure = DatabaseError(code: code, message: message) }
    }

    /// `name` quoted by the dialect; a NUL character, refused there, is shown as `\0` and fails the request.
    package mutating func quoted(_ name: String) -> String {
        do {
            return try dialect.quote(name)
        } catch {
            fail("an SQL identifier cannot contain a NUL character")
            return (try? dialect.quote(name.replacingOccurrences(of: "\u{0}", with: "\\0"))) ?? ""
        }
    }

    package mutating func appendIdentifier(_ name: String) {
        append(quoted(name))
    }

    package mutating func appendValue(_ value: SQLValue) {
        positional.append(value)
        append(dialect.placeholder(positional.count))
    }

    /// The quoted table name or alias a column of `table` is qualified with.
    mutating func qualifier(for table: TableReference?) -> String? {
        guard let table else { return ownTable }
        if let alias = table.alias { return quoted(alias) }
        return aliases[table.type] ?? quoted(table.name)
    }

    // MARK: Expressions

    mutating func append(_ node: SQLExpression.Node) {
        switch node {
        case .column(let name, let table):
            if let qualifier = qualifier(for: table) {
                append(qualifier + ".")
            }
            appendIdentifier(name)
        case .value(let value):
            appendValue(value)
        case .raw(let sql):
            append(sql)
        case .infix(let sqlOperator, let lhs, let rhs):
            // A Decimal value meeting a column compares by value, not as text (see `SQLCollation.decimal`).
            let byValue = (lhs.isDecimalValue || rhs.isDecimalValue) && Self.comparisons.contains(sqlOperator)
            appendOperand(lhs, collating: byValue && !lhs.isValue)
            append(" \(sqlOperator) ")
            appendOperand(rhs, collating: byValue && !rhs.isValue)
        case .prefix(let sqlOperator, let operand):
            append(sqlOperator + " ")
            appendOperand(operand)
        case .postfix(let sqlOperator, let operand):
            appendOperand(operand)
            append(" " + sqlOperator)
        case .function(let name, let arguments, let distinct):
            append(name + "(" + (distinct ? "DISTINCT " : ""))
            appendList(arguments)
            append(")")
        case .inList(_, let list, let negated) where list.isEmpty:
            // `IN ()` matches nothing, even NULL; PostgreSQL refuses the empty list, so it is written as what it is.
            append(negated ? "(1 = 1)" : "(1 = 0)")
        case .inList(let operand, let list, let negated):
            appendOperand(operand, collating: list.contains { $0.isDecimalValue })
            append(negated ? " NOT IN (" : " IN (")
            appendList(list)
            append(")")
        case .like(let operand, let pattern, let escape):
            let like = dialect.like
            appendOperand(operand)
            if let collation = like.collation { append(" COLLATE " + collation) }
            append(" \(like.operator) ")
            appendOperand(pattern)
            if let escape {
                append(" ESCAPE ")
                appendOperand(escape)
            } else if let escape = like.defaultEscape {
                append(" ESCAPE " + escape)
            }
        case .collate(let operand, let collation):
            appendOperand(operand)
            if let clause = dialect.collate(collation) { append(clause) }
        case .between(let operand, let low, let high):
            appendOperand(operand, collating: low.isDecimalValue || high.isDecimalValue)
            append(" BETWEEN ")
            appendOperand(low)
            append(" AND ")
            appendOperand(high)
        case .star:
            append("*")
        }
    }

    /// The operators that compare two values, where a Decimal value makes the other side compare by value.
    static let comparisons: Set<String> = ["=", "<>", "<", "<=", ">", ">="]

    /// An operand of an operator: in parentheses when it is itself an operation, so precedence never changes
    /// what an expression means; `collating` adds the dialect's decimal collation (see `SQLCollation.decimal`).
    private mutating func appendOperand(_ node: SQLExpression.Node, collating: Bool = false) {
        switch node {
        case .infix, .prefix, .postfix, .inList, .between, .raw, .like, .collate:
            append("(")
            append(node)
            append(")")
        case .column, .value, .function, .star:
            append(node)
        }
        if collating, case .collate = node {
            return
        } else if collating, let clause = dialect.collate(.decimal) {
            append(clause)
        }
    }

    mutating func appendList(_ nodes: [SQLExpression.Node]) {
        for (offset, node) in nodes.enumerated() {
            if offset > 0 { append(", ") }
            append(node)
        }
    }

    /// A raw fragment as written, with its positional placeholders its own: `?` takes the fragment's next value,
    /// `?NNN` (and `$NNN` in PostgreSQL) its NNN-th, each rendered as a value of the request in the dialect's
    /// spelling. Its named values are bound by name (a name given two different values by two fragments is an
    /// error). A fragment that ends in a `--` comment gets a line break, so that nothing after it is commented out.
    ///
    /// PostgreSQL has no `?` placeholder of its own: there, a `?` in a fragment without positional values is
    /// jsonb's operator and stays as written.
    ///
    /// - Returns: Whether the fragment ends inside a string, a quoted name or a comment that it leaves open.
    @discardableResult
    package mutating func appendText(_ text: String, _ arguments: SQLArguments) -> Bool {
        if text.unicodeScalars.contains("\u{0}") {
            fail("the SQL fragment contains a NUL character, where SQLite would stop reading it")
        }
        let scanned = SQLFragmentScanner(text, syntax: dialect.syntax).pieces()
        let questionMarksAreOperators = dialect.syntax == .postgres && arguments.positional.isEmpty
        var used = Set<Int>()
        var highest = 0
        for piece in scanned.pieces {
            switch piece {
            case .text(let sql):
                append(String(sql))
            case .placeholder(_, let spelling) where questionMarksAreOperators && spelling.hasPrefix("?"):
                append(String(spelling))
            case .placeholder(let number, let spelling):
                // As SQLite numbers them: a plain `?` is one more than the highest number before it.
                let position = number ?? highest + 1
                highest = Swift.max(highest, position)
                guard position >= 1, position <= arguments.positional.count else {
                    fail(
                        "no value for the parameter \(spelling) of the SQL fragment `\(text)`, which has "
                            + "\(arguments.positional.count) positional value\(arguments.positional.count == 1 ? "" : "s")",
                        code: .unknownParameter)
                    append(String(spelling))
                    continue
                }
                used.insert(position)
                appendValue(arguments.positional[position - 1])
            }
        }
        if scanned.endsInLineComment { append("\n") }
        if used.count < arguments.positional.count {
            fail(
                "the SQL fragment `\(text)` has \(arguments.positional.count) positional values and uses "
                    + "\(used.count) of them")
        }
        for (name, value) in arguments.named {
            if let existing = named[name], existing.value.databaseValue != value.value.databaseValue {
                fail("two SQL fragments of one request give the parameter :\(name) different values")
            }
            named[name] = value
        }
        return scanned.endsQuoted
    }

    // MARK: Clauses

    package mutating func appendSelection(_ selection: SQLSelection) {
        switch selection.kind {
        case .expression(let node):
            append(node)
        case .aliased(let node, let key):
            append(node)
            append(" AS ")
            appendIdentifier(key)
        case .allColumns(let table):
            if let qualifier = qualifier(for: table) {
                append(qualifier + ".")
            }
            append("*")
        }
    }

    /// One `ORDER BY` term, NULL first ascending and last descending (the dialect's ``SQLDialect/nullsOrder(descending:)``)
    /// unless the term is `neverNull`.
    package mutating func appendOrdering(_ ordering: SQLOrdering, neverNull: Bool = false) {
        append(ordering.expression.node)
        if ordering.descending { append(" DESC") }
        if !neverNull { append(dialect.nullsOrder(descending: ordering.descending)) }
    }

    /// `conditions` joined by `AND`, each in parentheses when it is an operation.
    mutating func appendConjunction(_ conditions: [SQLExpression.Node]) {
        for (offset, condition) in conditions.enumerated() {
            if offset > 0 { append(" AND ") }
            if conditions.count > 1 {
                appendOperand(condition)
            } else {
                append(condition)
            }
        }
    }
}

extension SQLExpression.Node {
    /// Whether the node is a bound Swift value.
    var isValue: Bool {
        if case .value = self { return true }
        return false
    }

    /// Whether the node is a bound `Decimal`, which compares with a column by value (see `SQLCollation.decimal`).
    var isDecimalValue: Bool {
        if case .value(let value) = self { return value.value is Decimal }
        return false
    }
}
