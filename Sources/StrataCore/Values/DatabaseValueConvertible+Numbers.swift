// Numbers are strict: a value that does not fit the requested type throws instead of
// wrapping, truncating or rounding.

extension DatabaseValue {
    /// The integer this value holds exactly, or a thrown error naming `requested`.
    @inlinable @inline(__always)
    package func exactInteger<T: FixedWidthInteger>(as requested: T.Type) throws -> T {
        switch self {
        case .integer(let value):
            guard let result = T(exactly: value) else {
                throw DatabaseError.conversion(.valueOutOfRange, from: self, to: T.self, reason: "out of range")
            }
            return result
        case .real(let value):
            guard value.rounded(.towardZero) == value else {
                throw DatabaseError.conversion(.typeMismatch, from: self, to: T.self, reason: "not an integral number")
            }
            guard let result = T(exactly: value) else {
                throw DatabaseError.conversion(.valueOutOfRange, from: self, to: T.self, reason: "out of range")
            }
            return result
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: self, to: T.self)
        case .text, .blob:
            throw DatabaseError.conversion(.typeMismatch, from: self, to: T.self)
        }
    }

    /// The floating-point number this value holds, or a thrown error naming `requested`.
    @inline(__always)
    func double(as requested: Any.Type) throws -> Double {
        switch self {
        case .real(let value):
            return value
        case .integer(let value):
            guard let result = Double(exactly: value) else {
                throw DatabaseError.conversion(
                    .valueOutOfRange, from: self, to: requested, reason: "not exactly representable")
            }
            return result
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: self, to: requested)
        case .text, .blob:
            throw DatabaseError.conversion(.typeMismatch, from: self, to: requested)
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: Int.self) }
}

extension Int8: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: Int8.self) }
}

extension Int16: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: Int16.self) }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: Int32.self) }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: Int64.self) }
}

extension UInt8: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: UInt8.self) }
}

extension UInt16: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: UInt16.self) }
}

extension UInt32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: UInt32.self) }
}

/// Unsigned values above `Int64.max` have no INTEGER form. Binding one throws
/// ``DatabaseError/Code/valueOutOfRange``; the strategy-free `databaseValue` gives its decimal TEXT.
extension UInt64: DatabaseValueConvertible, StrategyAwareValue {
    public var databaseValue: DatabaseValue {
        Int64(exactly: self).map(DatabaseValue.integer) ?? .text(String(self))
    }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: UInt64.self) }

    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        guard let value = Int64(exactly: self) else { throw DatabaseError.unsignedOverflow(UInt64.self) }
        return .integer(value)
    }
    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        try self.init(databaseValue: databaseValue)
    }
}

/// See `UInt64`: values above `Int64.max` throw when bound.
extension UInt: DatabaseValueConvertible, StrategyAwareValue {
    public var databaseValue: DatabaseValue {
        Int64(exactly: self).map(DatabaseValue.integer) ?? .text(String(self))
    }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.exactInteger(as: UInt.self) }

    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        guard let value = Int64(exactly: self) else { throw DatabaseError.unsignedOverflow(UInt.self) }
        return .integer(value)
    }
    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        try self.init(databaseValue: databaseValue)
    }
}

extension DatabaseError {
    static func unsignedOverflow(_ type: Any.Type) -> DatabaseError {
        DatabaseError(
            code: .valueOutOfRange,
            message: "could not store \(type) above Int64.max: SQLite INTEGER is a signed 64-bit number")
    }
}

/// Stored as INTEGER 0 or 1; any non-zero INTEGER reads as `true`, as in SQL. An integral REAL reads as its
/// INTEGER does (`1.0` is `true`), as it does for `Int`; any other REAL throws.
extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .integer(let value): self = value != 0
        case .real(let value) where value.rounded(.towardZero) == value: self = value != 0
        case .null: throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: Bool.self)
        default: throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: Bool.self)
        }
    }
}

/// INTEGER reads as Double only when the conversion is exact (below 2^53 in magnitude).
extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public init(databaseValue: DatabaseValue) throws { self = try databaseValue.double(as: Double.self) }
}

/// Stored as REAL. Reading rounds to the nearest Float; a finite value beyond Float's range throws.
extension Float: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(Double(self)) }
    public init(databaseValue: DatabaseValue) throws {
        let double = try databaseValue.double(as: Float.self)
        let result = Float(double)
        if result.isInfinite && double.isFinite {
            throw DatabaseError.conversion(
                .valueOutOfRange, from: databaseValue, to: Float.self, reason: "out of range")
        }
        self = result
    }
}
