/// A value that can stand in an SQL expression: a column, an expression, or a Swift value (bound as a
/// parameter, never spliced into the SQL).
public protocol SQLExpressible: Sendable {
    /// The expression this value stands for.
    var sqlExpression: SQLExpression { get }
}

/// An expression that is SQL rather than a plain Swift value: a ``Column`` or an ``SQLExpression``.
///
/// Operators take one of these on at least one side, so that `1 == 2` stays Swift's comparison and
/// `Column("id") == 2` becomes SQL.
public protocol SQLSpecificExpressible: SQLExpressible {}

/// An SQL expression whose Swift type is not known: a ``Column`` or an ``SQLExpression``. The operators compare it
/// with a Swift value of any type; a ``TypedColumn`` compares only with values of its own type.
public protocol SQLUntypedExpressible: SQLSpecificExpressible {}

/// A piece of SQL built from columns, values and operators, rendered with its values as bound parameters.
///
/// ```swift
/// let predicate = Column("mood") == "happy" && Column("archivedAt") == nil
/// let request = Note.filter(predicate)            // WHERE ("note"."mood" = ? AND "note"."archivedAt" IS NULL)
/// let custom = SQLExpression(sql: "length(content) > :n", parameters: ["n": 3])
/// ```
///
/// Expressions are values: build them anywhere, share them between tasks, and hand them to a request.
public struct SQLExpression: SQLUntypedExpressible, SQLOrderingTerm, SQLSelectable {
    indirect enum Node: Sendable {
        /// A column; `table` nil is the request's own table.
        case column(name: String, table: TableReference?)
        /// A Swift value, bound as a parameter.
        case value(SQLValue)
        /// Raw SQL with its own values: interpolated, or by `:name` or positional `?`.
        case raw(SQL)
        /// `left op right`.
        case infix(String, Node, Node)
        /// `op operand`, such as `NOT x`.
        case prefix(String, Node)
        /// `operand op`, such as `x IS NULL`.
        case postfix(String, Node)
        /// `name(arguments)`, with `DISTINCT` first when asked.
        case function(String, [Node], distinct: Bool)
        /// `operand IN (list)`; an empty list matches nothing.
        case inList(Node, [Node], negated: Bool)
        /// `operand LIKE pattern`, with an `ESCAPE` character when given: ASCII letters match case-insensitively and
        /// a backslash is an ordinary character unless it is the escape, in every dialect.
        case like(Node, pattern: Node, escape: Node?)
        /// `operand COLLATE name`, as the dialect spells the collation.
        case collate(Node, SQLCollation)
        /// `operand BETWEEN low AND high`.
        case between(Node, Node, Node)
        /// `*`, in `count(*)`.
        case star
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    /// The Swift value this expression binds, when it is one value and nothing else.
    package var boundValue: (any DatabaseValueConvertible & Sendable)? {
        if case .value(let value) = node { return value.value }
        return nil
    }

    /// Raw SQL, for what the operators and functions do not cover. Values go in `parameters`, by `:name`
    /// or positional `?`, and are bound, never spliced.
    ///
    /// ```swift
    /// Note.filter(SQLExpression(sql: "length(content) > :n", parameters: ["n": 3]))
    /// Note.filter(SQLExpression(sql: "instr(content, ?) > 0", parameters: ["swift"]))
    /// ```
    public init(sql: String, parameters: SQLArguments = [:]) {
        node = .raw(SQL(sql: sql, parameters: parameters))
    }

    /// Raw SQL written with interpolation: each interpolated value is bound, never spliced (see ``SQL``).
    ///
    /// ```swift
    /// let minimum = 3
    /// Note.filter(SQLExpression("length(content) > \(minimum)"))
    /// ```
    public init(_ sql: SQL) {
        node = .raw(sql)
    }

    public var sqlExpression: SQLExpression { self }

    /// This expression under the name `key`, so that a `Decodable` type reads it by that key (`AS "key"`).
    ///
    /// ```swift
    /// struct Stats: Decodable { var newest: Int64; var total: Int }
    /// let stats = try db.fetchOne(Stats.self, Note.select(max(Column("id")).forKey("newest"),
    ///                                                     count(Column("id")).forKey("total")))
    /// ```
    public func forKey(_ key: String) -> SQLSelection {
        SQLSelection(.aliased(node, key))
    }

    /// This expression compared, ordered and aggregated with `collation` (`expression COLLATE name`).
    ///
    /// ```swift
    /// Payment.order(Column("amount").collating(.decimal))      // TEXT amounts by their value
    /// ```
    public func collating(_ collation: SQLCollation) -> SQLExpression {
        SQLExpression(.collate(node, collation))
    }

    /// Ascending order, the default.
    public var asc: SQLOrdering { SQLOrdering(expression: self, descending: false) }
    /// Descending order.
    public var desc: SQLOrdering { SQLOrdering(expression: self, descending: true) }

    public var orderingExpression: SQLOrdering { asc }
    public var selection: SQLSelection { SQLSelection(.expression(node)) }
}

/// A column of a table: of the request's own model, or of another model with `table:`.
///
/// ```swift
/// Note.filter(Column("mood") == "happy")                                   // "note"."mood"
/// Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id"))
/// ```
///
/// The name is quoted with embedded `"` doubled: a name with quotes is just a column that does not exist.
public struct Column: SQLUntypedExpressible, SQLOrderingTerm, SQLSelectable {
    /// The column's name.
    public let name: String
    let table: TableReference?

    /// The column `name` of the request's own model table.
    public init(_ name: String) {
        self.name = name
        self.table = nil
    }

    /// The column `name` of `table`'s table, for joins.
    public init<Table: Model>(_ name: String, table: Table.Type) {
        self.name = name
        self.table = TableReference(Table.self)
    }

    /// The column `name` of a table joined under an alias, as in a join of a table with itself.
    ///
    /// ```swift
    /// let parent = Note.aliased("parent")
    /// Note.joining(parent, on: Column("id", table: parent) == Column("parentId"))
    /// ```
    public init<Table: Model>(_ name: String, table: TableAlias<Table>) {
        self.name = name
        self.table = table.reference
    }

    public var sqlExpression: SQLExpression { SQLExpression(.column(name: name, table: table)) }

    /// This column under the name `key`, for a `Decodable` type that reads it by that key.
    public func forKey(_ key: String) -> SQLSelection { sqlExpression.forKey(key) }

    /// This column compared, ordered and aggregated with `collation` (`column COLLATE name`).
    ///
    /// ```swift
    /// Payment.order(Column("amount").collating(.decimal))      // TEXT amounts by their value
    /// ```
    public func collating(_ collation: SQLCollation) -> SQLExpression { sqlExpression.collating(collation) }

    /// Ascending order, the default.
    public var asc: SQLOrdering { sqlExpression.asc }
    /// Descending order.
    public var desc: SQLOrdering { sqlExpression.desc }

    public var orderingExpression: SQLOrdering { asc }
    public var selection: SQLSelection { sqlExpression.selection }

    /// The assignment `name = value`, for `Database.updateAll(_:_:)`.
    ///
    /// ```swift
    /// try db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "happy"))
    /// ```
    public func set(to value: some SQLExpressible) -> ColumnAssignment {
        ColumnAssignment(column: name, value: value.sqlExpression)
    }

    /// The assignment `name = NULL`.
    public func set(to value: _OptionalNilComparisonType) -> ColumnAssignment {
        ColumnAssignment(column: name, value: SQLExpression(.value(SQLValue(DatabaseValue.null))))
    }
}

/// A collation: how text compares and sorts in an expression (`COLLATE name`).
///
/// ```swift
/// Payment.filter(Column("amount").collating(.decimal) > "9.5").order(Column("amount").collating(.decimal))
/// Note.order(Column("title").collating(SQLCollation("unicode_ci")))     // one created with createCollation
/// ```
public struct SQLCollation: Sendable, Hashable {
    /// The collation's name.
    public let name: String

    /// The collation `name`: a built-in one (`BINARY`, `NOCASE`, `RTRIM` in SQLite; `"C"` or an ICU collation in
    /// PostgreSQL) or one created with `Database.createCollation(_:_:)`.
    public init(_ name: String) {
        self.name = name
    }

    /// Text that holds decimal numbers (`Decimal` values in TEXT columns) by their value, exactly: `9.5` before
    /// `10.25`, `10.250` equal to `10.25`; other text after every number. SQLite's `strata_decimal`, which every
    /// connection Strata opens has; in PostgreSQL, where a `numeric` column compares by value already, nothing.
    ///
    /// Strata adds it itself where a `Decimal` value meets a column in a comparison, `BETWEEN` or `IN`, and to a
    /// ``TypedColumn`` of `Decimal`.
    public static let decimal = SQLCollation("strata_decimal")
}

/// One `SET column = value` of an `Database.updateAll(_:_:)`.
public struct ColumnAssignment: Sendable {
    package let column: String
    package let value: SQLExpression
}

/// The table of a model type, named by the type so that a join can give it an alias, or joined under an alias of
/// its own.
struct TableReference: Sendable, Hashable {
    let type: ObjectIdentifier
    let name: String
    /// The name the table has in the request (`JOIN "note" AS "parent"`); nil for its own name.
    let alias: String?

    init<Table: Model>(_ type: Table.Type, alias: String? = nil) {
        self.type = ObjectIdentifier(Table.self)
        self.name = Table.tableName
        self.alias = alias
    }
}

/// A model's table under another name in a request: what joins a table with itself.
///
/// ```swift
/// let parent = Note.aliased("parent")
/// let withParents: [(Note, Note)] = try db.fetchAll(
///     Note.joining(parent, on: Column("id", table: parent) == Column("parentId"))
///         .filter(Column("title", table: parent) == "Inbox"))
/// ```
///
/// Name its columns with `Column(_:table:)`; the request's own columns stay those of the unaliased table.
public struct TableAlias<Record: Model>: Sendable {
    /// The alias, quoted like any identifier where it is used.
    public let name: String

    var reference: TableReference { TableReference(Record.self, alias: name) }
}

extension Model {
    /// The model's table under the name `alias`, for joining the table with itself.
    public static func aliased(_ alias: String) -> TableAlias<Self> {
        TableAlias(name: alias)
    }
}

/// A Swift value in an expression: bound through the statement's strategies when the statement runs.
package struct SQLValue: Sendable {
    package let value: any DatabaseValueConvertible & Sendable

    init(_ value: any DatabaseValueConvertible & Sendable) {
        self.value = value
    }

    var isNull: Bool {
        value.databaseValue == .null
    }
}

// MARK: Swift values are expressions

extension SQLExpressible where Self: DatabaseValueConvertible {
    public var sqlExpression: SQLExpression { SQLExpression(.value(SQLValue(self))) }
}

extension Bool: SQLExpressible {}
extension Int: SQLExpressible {}
extension Int8: SQLExpressible {}
extension Int16: SQLExpressible {}
extension Int32: SQLExpressible {}
extension Int64: SQLExpressible {}
extension UInt: SQLExpressible {}
extension UInt8: SQLExpressible {}
extension UInt16: SQLExpressible {}
extension UInt32: SQLExpressible {}
extension UInt64: SQLExpressible {}
extension Float: SQLExpressible {}
extension Double: SQLExpressible {}
extension String: SQLExpressible {}
extension DatabaseValue: SQLExpressible {}

extension Optional: SQLExpressible where Wrapped: SQLExpressible & DatabaseValueConvertible {
    public var sqlExpression: SQLExpression {
        switch self {
        case .none: SQLExpression(.value(SQLValue(DatabaseValue.null)))
        case .some(let wrapped): wrapped.sqlExpression
        }
    }
}
