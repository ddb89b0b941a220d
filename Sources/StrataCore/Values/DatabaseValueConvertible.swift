public import Foundation

/// A type that can be stored in a column and read back from one.
///
/// Strata's built-in types conform already: `Bool`, every integer width, `Float`, `Double`,
/// `String`, `Data`, `[UInt8]`, `Date`, `UUID`, `URL`, `Decimal`, arrays and optionals of
/// them. Conform your own types to bind them and read them from rows:
///
/// ```swift
/// struct Money: DatabaseValueConvertible {
///     var cents: Int64
///     var databaseValue: DatabaseValue { .integer(cents) }
///     init(databaseValue: DatabaseValue) throws {
///         guard case .integer(let cents) = databaseValue else {
///             throw MoneyError.notCents
///         }
///         self.cents = cents
///     }
/// }
/// ```
///
/// An enum with a raw value gets both requirements for free: `enum Color: String, DatabaseValueConvertible { ... }`.
///
/// When `init(databaseValue:)` throws, Strata reports the error with the column it was
/// reading and keeps yours as ``DatabaseError/underlyingError``.
public protocol DatabaseValueConvertible {
    /// The value to store.
    var databaseValue: DatabaseValue { get }
    /// Creates a value from what a column holds; throws when the stored value cannot be this type.
    init(databaseValue: DatabaseValue) throws
}

/// What a statement needs to know to turn a value into a column and back:
/// the date, array and UUID strategies of the statement or coder.
@usableFromInline
package struct ValueStrategies: Sendable, Equatable {
    @usableFromInline package var date: DateStrategy
    @usableFromInline package var array: ArrayStrategy
    @usableFromInline package var uuid: UUIDStrategy

    @inlinable
    package init(date: DateStrategy = .text, array: ArrayStrategy = .json, uuid: UUIDStrategy = .blob) {
        self.date = date
        self.array = array
        self.uuid = uuid
    }
}

/// Built-in types whose storage depends on a strategy, or whose conversion to storage can fail.
///
/// Statements and coders look for this conformance first; `databaseValue` from the public
/// protocol is the strategy-free default.
@usableFromInline
package protocol StrategyAwareValue {
    func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue
    init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws
}

extension DatabaseValueConvertible {
    /// The stored form of `self` under `strategies`, through the strategy-aware path when there is one.
    @inlinable @inline(__always)
    package func storedValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        // The plain types need no strategy: skip the conformance look-up (a metatype compare is a pointer compare).
        if Self.isStrategyFree { return databaseValue }
        if let aware = self as? any StrategyAwareValue {
            return try aware.databaseValue(using: strategies)
        }
        return databaseValue
    }

    /// Whether `Self` is one of the common types whose storage no strategy changes.
    @inlinable @inline(__always)
    package static var isStrategyFree: Bool {
        Self.self == Int64.self || Self.self == Int.self || Self.self == String.self || Self.self == Double.self
            || Self.self == Bool.self || Self.self == Data.self || Self.self == DatabaseValue.self
    }

    /// Reads `Self` from `value` under `strategies`, through the strategy-aware path when there is one.
    @inlinable @inline(__always)
    package static func decoded(from value: DatabaseValue, using strategies: ValueStrategies) throws -> Self {
        if isStrategyFree { return try Self(databaseValue: value) }
        if let aware = Self.self as? any StrategyAwareValue.Type {
            // The cast cannot fail: `aware` is `Self.self` seen through the protocol.
            if let result = try aware.init(databaseValue: value, using: strategies) as? Self {
                return result
            }
        }
        return try Self(databaseValue: value)
    }
}

// MARK: - Optional

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// `nil` is stored as NULL.
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.databaseValue
        }
    }

    /// NULL reads as `nil`; anything else as `Wrapped`.
    public init(databaseValue: DatabaseValue) throws {
        if case .null = databaseValue {
            self = .none
        } else {
            self = .some(try Wrapped(databaseValue: databaseValue))
        }
    }
}

extension Optional: StrategyAwareValue where Wrapped: DatabaseValueConvertible {
    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.storedValue(using: strategies)
        }
    }

    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        if case .null = databaseValue {
            self = .none
        } else {
            self = .some(try Wrapped.decoded(from: databaseValue, using: strategies))
        }
    }
}

// MARK: - RawRepresentable

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// The raw value is stored.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    /// Reads the raw value; a raw value with no matching case throws.
    public init(databaseValue: DatabaseValue) throws {
        let raw = try RawValue(databaseValue: databaseValue)
        guard let value = Self(rawValue: raw) else {
            throw DatabaseError.conversion(
                .invalidValue, from: databaseValue, to: Self.self, reason: "no case has this raw value")
        }
        self = value
    }
}
