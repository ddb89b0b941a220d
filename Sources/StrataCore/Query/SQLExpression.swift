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
        /// Raw SQL with its own named or positional parameters.
        case raw(String, SQLArguments)
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
        /// `operand BETWEEN low AND high`.
        case between(Node, Node, Node)
        /// `*`, in `count(*)`.
        case star
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    /// Raw SQL, for what the operators and functions do not cover. Values go in `parameters`, by `:name`
    /// or positional `?`, and are bound, never spliced.
    ///
    /// ```swift
    /// Note.filter(SQLExpression(sql: "length(content) > :n", parameters: ["n": 3]))
    /// Note.filter(SQLExpression(sql: "instr(content, ?) > 0", parameters: ["swift"]))
    /// ```
    public init(sql: String, parameters: SQLArguments = [:]) {
        node = .raw(sql, parameters)
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

    public var sqlExpression: SQLExpression { SQLExpression(.column(name: name, table: table)) }

    /// This column under the name `key`, for a `Decodable` type that reads it by that key.
    public func forKey(_ key: String) -> SQLSelection { sqlExpression.forKey(key) }

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

/// One `SET column = value` of an `Database.updateAll(_:_:)`.
public struct ColumnAssignment: Sendable {
    let column: String
    let value: SQLExpression
}

/// The table of a model type, named by the type so that a join can give it an alias.
struct TableReference: Sendable, Hashable {
    let type: ObjectIdentifier
    let name: String

    init<Table: Model>(_ type: Table.Type) {
        self.type = ObjectIdentifier(Table.self)
        self.name = Table.tableName
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
