public import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// See https://www.sqlite.org/datatype3.html
public enum DatabaseValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is SQL NULL.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The storage class as SQL names it: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storageClassName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// A short form for logs and tests: `NULL`, `42`, `1.5`, `'text'`, `x'00ff'`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public init(databaseValue: DatabaseValue) { self = databaseValue }
}
