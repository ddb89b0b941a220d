/// The choice synthesized `Codable` makes for each property, made by the compiler for the `init(from:)` and
/// `encode(to:)` that `@Table` generates.
///
/// Swift's synthesized conformance decodes an optional property with `decodeIfPresent` and encodes it with
/// `encodeIfPresent`, and knows a property is optional from its type, even through a typealias. The macro sees only
/// the type as written: for a type it cannot tell (a `typealias MaybeID = Int64?` reads like any other name), the
/// generated code writes both calls, exactly as synthesis would write either one, and these overloads pick one at
/// compile time, the optional one for an `Optional`. The calls themselves stay in the generated code, so that
/// overload resolution (a concrete `decode(Int.self, forKey:)`, or one a program declares in an extension of the
/// container) is the same as in synthesized code.
///
/// Not API: only code that `@Table` generates calls it.
public enum TableCoding {
    /// The value `decode` gives, for a type that is not an `Optional`.
    @inlinable @inline(__always)
    public static func decode<Value>(
        _ type: Value.Type, _ decode: () throws -> Value, ifPresent: () throws -> Value?
    ) rethrows -> Value {
        try decode()
    }

    /// The value `ifPresent` gives (`decodeIfPresent` of the wrapped type), for an `Optional`.
    @inlinable @inline(__always)
    public static func decode<Wrapped>(
        _ type: Wrapped?.Type, _ decode: () throws -> Wrapped?, ifPresent: () throws -> Wrapped?
    ) rethrows -> Wrapped? {
        try ifPresent()
    }

    /// The type itself, for a type that is not an `Optional`.
    @inlinable @inline(__always)
    public static func wrapped<Value>(_ type: Value.Type) -> Value.Type { type }

    /// The wrapped type of an `Optional`, which `decodeIfPresent` takes.
    @inlinable @inline(__always)
    public static func wrapped<Wrapped>(_ type: Wrapped?.Type) -> Wrapped.Type { Wrapped.self }

    /// Runs `encode`, for a value that is not an `Optional`.
    @inlinable @inline(__always)
    public static func encode<Value>(
        _ value: Value, _ encode: () throws -> Void, ifPresent: () throws -> Void
    ) rethrows {
        try encode()
    }

    /// Runs `ifPresent` (`encodeIfPresent`), for an `Optional`.
    @inlinable @inline(__always)
    public static func encode<Wrapped>(
        _ value: Wrapped?, _ encode: () throws -> Void, ifPresent: () throws -> Void
    ) rethrows {
        try ifPresent()
    }
}
