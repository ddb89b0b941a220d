// The operators of an expression. One side is always SQL (a column or an expression), so that comparing two
// Swift values stays Swift's own operator. A Swift value meets an untyped column or expression here; a typed
// column (TypedColumn.swift) takes only values of its own type. An operator between two SQL sides comes twice, for
// any two and for two untyped ones: the second is the most specific match for `Column("a") == Column("b")`, which the
// value forms also accept.

// MARK: Comparison

/// `lhs = rhs`; `IS NULL` when `rhs` is nil.
public func == (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    comparison("=", nullForm: "IS NULL", lhs.sqlExpression, rhs.sqlExpression)
}

/// `lhs = rhs`; `IS NULL` when `lhs` is nil.
public func == (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    comparison("=", nullForm: "IS NULL", rhs.sqlExpression, lhs.sqlExpression)
}

/// `lhs = rhs`.
public func == (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    comparison("=", nullForm: "IS NULL", lhs.sqlExpression, rhs.sqlExpression)
}
/// `lhs = rhs`.
public func == (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    comparison("=", nullForm: "IS NULL", lhs.sqlExpression, rhs.sqlExpression)
}

/// `lhs IS NULL`.
public func == (lhs: some SQLUntypedExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression {
    SQLExpression(.postfix("IS NULL", lhs.sqlExpression.node))
}

/// `lhs <> rhs`; `IS NOT NULL` when `rhs` is nil.
public func != (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    comparison("<>", nullForm: "IS NOT NULL", lhs.sqlExpression, rhs.sqlExpression)
}

/// `lhs <> rhs`; `IS NOT NULL` when `lhs` is nil.
public func != (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    comparison("<>", nullForm: "IS NOT NULL", rhs.sqlExpression, lhs.sqlExpression)
}

/// `lhs <> rhs`.
public func != (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    comparison("<>", nullForm: "IS NOT NULL", lhs.sqlExpression, rhs.sqlExpression)
}
/// `lhs <> rhs`.
public func != (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    comparison("<>", nullForm: "IS NOT NULL", lhs.sqlExpression, rhs.sqlExpression)
}

/// `lhs IS NOT NULL`.
public func != (lhs: some SQLUntypedExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression {
    SQLExpression(.postfix("IS NOT NULL", lhs.sqlExpression.node))
}

/// `=` or `<>`, or `IS NULL` / `IS NOT NULL` when the other side is a nil value, as a Swift reader expects.
private func comparison(
    _ sqlOperator: String, nullForm: String, _ expression: SQLExpression, _ other: SQLExpression
) -> SQLExpression {
    if case .value(let value) = other.node, value.isNull {
        return SQLExpression(.postfix(nullForm, expression.node))
    }
    return SQLExpression(.infix(sqlOperator, expression.node, other.node))
}

/// `lhs < rhs`.
public func < (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    infix("<", lhs, rhs)
}
/// `lhs < rhs`.
public func < (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("<", lhs, rhs)
}
/// `lhs < rhs`.
public func < (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("<", lhs, rhs)
}
/// `lhs < rhs`.
public func < (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("<", lhs, rhs)
}
/// `lhs <= rhs`.
public func <= (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    infix("<=", lhs, rhs)
}
/// `lhs <= rhs`.
public func <= (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("<=", lhs, rhs)
}
/// `lhs <= rhs`.
public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("<=", lhs, rhs)
}
/// `lhs <= rhs`.
public func <= (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("<=", lhs, rhs)
}
/// `lhs > rhs`.
public func > (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    infix(">", lhs, rhs)
}
/// `lhs > rhs`.
public func > (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix(">", lhs, rhs)
}
/// `lhs > rhs`.
public func > (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix(">", lhs, rhs)
}
/// `lhs > rhs`.
public func > (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix(">", lhs, rhs)
}
/// `lhs >= rhs`.
public func >= (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression {
    infix(">=", lhs, rhs)
}
/// `lhs >= rhs`.
public func >= (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix(">=", lhs, rhs)
}
/// `lhs >= rhs`.
public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix(">=", lhs, rhs)
}
/// `lhs >= rhs`.
public func >= (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix(">=", lhs, rhs)
}

// MARK: Logic

/// `lhs AND rhs`.
public func && (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("AND", lhs, rhs)
}
/// `lhs OR rhs`.
public func || (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("OR", lhs, rhs)
}
/// `NOT operand`.
public prefix func ! (operand: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.prefix("NOT", operand.sqlExpression.node))
}

// MARK: Arithmetic

/// `lhs + rhs`.
public func + (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression { infix("+", lhs, rhs) }
/// `lhs + rhs`.
public func + (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression { infix("+", lhs, rhs) }
/// `lhs + rhs`.
public func + (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("+", lhs, rhs)
}
/// `lhs + rhs`.
public func + (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("+", lhs, rhs)
}
/// `lhs - rhs`.
public func - (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression { infix("-", lhs, rhs) }
/// `lhs - rhs`.
public func - (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression { infix("-", lhs, rhs) }
/// `lhs - rhs`.
public func - (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("-", lhs, rhs)
}
/// `lhs - rhs`.
public func - (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("-", lhs, rhs)
}
/// `lhs * rhs`.
public func * (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression { infix("*", lhs, rhs) }
/// `lhs * rhs`.
public func * (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression { infix("*", lhs, rhs) }
/// `lhs * rhs`.
public func * (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("*", lhs, rhs)
}
/// `lhs * rhs`.
public func * (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("*", lhs, rhs)
}
/// `lhs / rhs`.
public func / (lhs: some SQLUntypedExpressible, rhs: some SQLExpressible) -> SQLExpression { infix("/", lhs, rhs) }
/// `lhs / rhs`.
public func / (lhs: some SQLExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression { infix("/", lhs, rhs) }
/// `lhs / rhs`.
public func / (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression {
    infix("/", lhs, rhs)
}
/// `lhs / rhs`.
public func / (lhs: some SQLUntypedExpressible, rhs: some SQLUntypedExpressible) -> SQLExpression {
    infix("/", lhs, rhs)
}

private func infix(_ sqlOperator: String, _ lhs: some SQLExpressible, _ rhs: some SQLExpressible) -> SQLExpression {
    SQLExpression(.infix(sqlOperator, lhs.sqlExpression.node, rhs.sqlExpression.node))
}

// MARK: Methods

extension SQLSpecificExpressible {
    /// `self LIKE pattern`: `%` matches any run of characters, `_` one character; ASCII letters match
    /// case-insensitively, other characters exactly; a backslash is an ordinary character.
    ///
    /// The same on every backend: SQLite's `LIKE`, PostgreSQL's `ILIKE` over the `"C"` collation (ASCII case
    /// folding only) with no escape character.
    ///
    /// ```swift
    /// Note.filter(Column("content").like("%swift%"))
    /// ```
    public func like(_ pattern: some SQLExpressible) -> SQLExpression {
        SQLExpression(.like(sqlExpression.node, pattern: pattern.sqlExpression.node, escape: nil))
    }

    /// `self LIKE pattern ESCAPE escape`: as ``like(_:)``, with `escape` before a `%`, `_` or itself in `pattern`
    /// matching that character literally. `escape` must be one character.
    ///
    /// Escape text from a user before putting it in a pattern, so that a `%` or `_` they typed matches itself:
    ///
    /// ```swift
    /// let literal = search.replacingOccurrences(of: "\\", with: "\\\\")
    ///     .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    /// Note.filter(Column("content").like("%" + literal + "%", escape: "\\"))
    /// ```
    public func like(_ pattern: some SQLExpressible, escape: String) -> SQLExpression {
        SQLExpression(.like(sqlExpression.node, pattern: pattern.sqlExpression.node, escape: escape.sqlExpression.node))
    }

    /// `self IS NULL`.
    public var isNull: SQLExpression {
        SQLExpression(.postfix("IS NULL", sqlExpression.node))
    }

}

extension SQLUntypedExpressible {
    /// `self BETWEEN low AND high`, both ends included.
    public func between(_ low: some SQLExpressible, _ high: some SQLExpressible) -> SQLExpression {
        SQLExpression(.between(sqlExpression.node, low.sqlExpression.node, high.sqlExpression.node))
    }
}

extension Sequence where Element: SQLExpressible {
    /// `expression IN (values...)`, each value bound; an empty sequence matches no row, and a nil among the values
    /// matches NULL, as `== nil` does (`expression IN (...) OR expression IS NULL`).
    ///
    /// ```swift
    /// Note.filter([1, 2, 3].contains(Column("id")))       // "note"."id" IN (?, ?, ?)
    /// ```
    public func contains(_ expression: some SQLUntypedExpressible) -> SQLExpression {
        SQLExpression.inList(expression.sqlExpression.node, map(\.sqlExpression.node))
    }
}

extension SQLExpression {
    /// `operand IN (values)`, with `OR operand IS NULL` when a value is nil: SQL's `IN` never matches NULL.
    static func inList(_ operand: Node, _ values: [Node]) -> SQLExpression {
        let present = values.filter { node in
            if case .value(let value) = node, value.isNull { return false }
            return true
        }
        guard present.count < values.count else { return SQLExpression(.inList(operand, values, negated: false)) }
        let isNull = Node.postfix("IS NULL", operand)
        guard !present.isEmpty else { return SQLExpression(isNull) }
        return SQLExpression(.infix("OR", .inList(operand, present, negated: false), isNull))
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `expression BETWEEN lowerBound AND upperBound`, both ends included (not an `IN` list of every value).
    ///
    /// ```swift
    /// Note.filter((1...9).contains(Column("score")))      // "note"."score" BETWEEN ? AND ?
    /// ```
    public func contains(_ expression: some SQLUntypedExpressible) -> SQLExpression {
        expression.between(lowerBound, upperBound)
    }
}

// MARK: Functions

/// `count(expression)`: the rows where `expression` is not NULL.
public func count(_ expression: some SQLExpressible) -> SQLExpression { function("count", expression) }
/// `count(*)`: every row.
public func count(_ star: SQLStar) -> SQLExpression { SQLExpression(.function("count", [.star], distinct: false)) }
/// `count(DISTINCT expression)`.
public func count(distinct expression: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function("count", [expression.sqlExpression.node], distinct: true))
}
/// `sum(expression)`: NULL over no rows.
public func sum(_ expression: some SQLExpressible) -> SQLExpression { function("sum", expression) }
/// `min(expression)`, the aggregate.
public func min(_ expression: some SQLSpecificExpressible) -> SQLExpression { function("min", expression) }
/// `max(expression)`, the aggregate.
public func max(_ expression: some SQLSpecificExpressible) -> SQLExpression { function("max", expression) }
/// `avg(expression)`.
public func avg(_ expression: some SQLExpressible) -> SQLExpression { function("avg", expression) }
/// `length(expression)`: characters of TEXT, bytes of a BLOB.
public func length(_ expression: some SQLExpressible) -> SQLExpression { function("length", expression) }
/// `lower(expression)`: ASCII only, unless `Database.useUnicodeCaseFunctions()` replaced it.
public func lower(_ expression: some SQLExpressible) -> SQLExpression { function("lower", expression) }
/// `upper(expression)`: ASCII only, unless `Database.useUnicodeCaseFunctions()` replaced it.
public func upper(_ expression: some SQLExpressible) -> SQLExpression { function("upper", expression) }
/// `coalesce(first, second)`: the first that is not NULL.
public func coalesce(_ first: some SQLExpressible, _ second: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function("coalesce", [first.sqlExpression.node, second.sqlExpression.node], distinct: false))
}

private func function(_ name: String, _ argument: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function(name, [argument.sqlExpression.node], distinct: false))
}

/// `*` in `count(*)`: `count(.all)`.
public enum SQLStar: Sendable {
    /// Every row.
    case all
}
