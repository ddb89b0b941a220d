/// What `order(_:)` takes: a column or expression (ascending), or `.asc` / `.desc` of one.
public protocol SQLOrderingTerm: Sendable {
    /// The ordering this term stands for.
    var orderingExpression: SQLOrdering { get }
}

/// One term of an `ORDER BY`.
public struct SQLOrdering: SQLOrderingTerm {
    let expression: SQLExpression
    let descending: Bool

    public var orderingExpression: SQLOrdering { self }
}

/// What `select(_:)` takes: a column or expression, or one named with `forKey(_:)`.
public protocol SQLSelectable: Sendable {
    /// The selection this stands for.
    var selection: SQLSelection { get }
}

/// One result column of a `SELECT`.
public struct SQLSelection: SQLSelectable {
    enum Kind: Sendable {
        case expression(SQLExpression.Node)
        case aliased(SQLExpression.Node, String)
        /// `table.*`; the table nil is the request's own.
        case allColumns(TableReference?)
    }

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    public var selection: SQLSelection { self }
}

/// The values of a raw SQL fragment (``SQLExpression/init(sql:parameters:)``, ``QueryRequest/filter(sql:parameters:)``):
/// a dictionary literal for `:name` parameters, or an array literal for positional `?`.
///
/// ```swift
/// Note.filter(sql: "length(content) > :n", parameters: ["n": 3])
/// Note.filter(sql: "length(content) BETWEEN ? AND ?", parameters: [3, 10])
/// ```
public struct SQLArguments: Sendable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    var named: [String: SQLValue]
    var positional: [SQLValue]

    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible & Sendable)?)...) {
        var named: [String: SQLValue] = [:]
        for (name, value) in elements {
            named[Self.bareName(name)] = SQLValue(value ?? DatabaseValue.null)
        }
        self.named = named
        self.positional = []
    }

    public init(arrayLiteral elements: (any DatabaseValueConvertible & Sendable)?...) {
        named = [:]
        positional = elements.map { SQLValue($0 ?? DatabaseValue.null) }
    }

    /// Named values; a name may carry its `:`, `@` or `$` prefix or not.
    public init(_ named: [String: (any DatabaseValueConvertible & Sendable)?]) {
        var values: [String: SQLValue] = [:]
        for (name, value) in named {
            values[Self.bareName(name)] = SQLValue(value ?? DatabaseValue.null)
        }
        self.named = values
        self.positional = []
    }

    /// Positional values, for `?` in order.
    public init(_ positional: [(any DatabaseValueConvertible & Sendable)?]) {
        named = [:]
        self.positional = positional.map { SQLValue($0 ?? DatabaseValue.null) }
    }

    private static func bareName(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, ":@$".unicodeScalars.contains(first) else { return name }
        return String(name.unicodeScalars.dropFirst())
    }
}
