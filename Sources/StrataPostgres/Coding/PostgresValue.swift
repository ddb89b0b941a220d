import Foundation
internal import PostgresNIO
internal import StrataCore

/// One bound value as PostgreSQL receives it: a type and its bytes in postgres-nio's wire format.
///
/// The mapping is Strata's on SQLite carried over to PostgreSQL's types: every integer width is `int8` (a
/// `UInt64` above `Int64.max` throws, never wraps), `Double` is `float8` and `Float` is `float4` (or their exact
/// text as `numeric`, see ``double(_:)``), `Date` is `timestamptz`, `UUID` is `uuid`, `Data` and `[UInt8]` are
/// `bytea`, `Decimal` is `numeric` sent as text (every digit kept), a `String` or a `URL`'s text is sent untyped
/// (the server gives it the type of its place: `text`, `citext`, an enum, `jsonb`...), and nested Codable values
/// (structs, arrays, dictionaries, sets) are `jsonb` in the same JSON that Strata stores as TEXT on SQLite.
enum PostgresValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// Every integer width.
    case int8(Int64)
    /// A Double.
    case float8(Double)
    /// A Float.
    case float4(Float)
    /// A Bool.
    case bool(Bool)
    /// A String, a URL's text, or the text a custom type stores: sent in text format with no type (OID 0), as a
    /// string literal is written, so that PostgreSQL reads it as the type its place needs (`text`, `varchar`,
    /// `citext`, an enum, a domain, `jsonb`...).
    case text(String)
    /// Data and [UInt8].
    case bytea([UInt8])
    /// A UUID.
    case uuid(UUID)
    /// A Date, sent as microseconds from PostgreSQL's epoch.
    case timestamptz(Date)
    /// A `numeric` in its text form, sent in text format so that no digit is lost: a Decimal, or a Double or Float
    /// that `float8` or `float4` would not carry exactly into a `numeric` column (see ``double(_:)``).
    case numeric(String)
    /// JSON text, sent as `jsonb`.
    case jsonb(String)

    /// Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 00:00:00 UTC.
    static let postgresEpochOffset: Int64 = 946_684_800

    // MARK: From Swift values

    /// The value of `value`, whatever its Swift type: the built-in types above, a ``DatabaseValueConvertible``
    /// type through its `DatabaseValue`, a single-value Codable type (a raw-value enum) through the value it
    /// encodes, anything else as `jsonb`.
    static func make<T: Encodable>(_ value: T) throws -> PostgresValue {
        if let known = try known(value) { return known }
        if value is any Sequence {
            return try json(value)
        }
        if let convertible = value as? any DatabaseValueConvertible {
            return try make(databaseValue: convertible.databaseValue, of: T.self)
        }
        let encoder = PostgresColumnEncoder()
        do {
            try value.encode(to: encoder)
        } catch is NestedValue {
            return try json(value)
        }
        guard let result = encoder.result else {
            throw DatabaseError(code: .invalidValue, message: "\(T.self) encoded no value")
        }
        return result
    }

    /// The value of a storable value of a request or a parameter dictionary, as ``make(_:)`` does.
    static func make(convertible value: any DatabaseValueConvertible) throws -> PostgresValue {
        if let encodable = value as? any Encodable {
            return try make(encodable)
        }
        if let known = try known(value) { return known }
        return try make(databaseValue: value.databaseValue, of: type(of: value))
    }

    /// The built-in types, or nil for any other.
    static func known(_ value: Any) throws -> PostgresValue? {
        // The type, not a cast: an empty array of any element type casts to [UInt8].
        if Swift.type(of: value) == [UInt8].self, let bytes = value as? [UInt8] {
            return .bytea(bytes)
        }
        switch value {
        case let value as String: return .text(value)
        case let value as Bool: return .bool(value)
        case let value as Int: return .int8(Int64(value))
        case let value as Int64: return .int8(value)
        case let value as Int32: return .int8(Int64(value))
        case let value as Int16: return .int8(Int64(value))
        case let value as Int8: return .int8(Int64(value))
        case let value as UInt8: return .int8(Int64(value))
        case let value as UInt16: return .int8(Int64(value))
        case let value as UInt32: return .int8(Int64(value))
        case let value as UInt64: return .int8(try fitting(value))
        case let value as UInt: return .int8(try fitting(UInt64(value)))
        case let value as Double: return double(value)
        case let value as Float: return float(value)
        case let value as Date: return .timestamptz(value)
        case let value as UUID: return .uuid(value)
        case let value as Data: return .bytea(Array(value))
        case let value as Decimal: return .numeric(value.description)
        case let value as URL: return .text(value.absoluteString)
        case let value as DatabaseValue: return try make(databaseValue: value, of: DatabaseValue.self)
        default: return nil
        }
    }

    /// A `UInt64` as `int8`, or an error when it is above `Int64.max`: never wrapped into a negative number.
    private static func fitting(_ value: UInt64) throws -> Int64 {
        guard let fitting = Int64(exactly: value) else {
            throw DatabaseError(
                code: .valueOutOfRange,
                message: "could not store a UInt64 above Int64.max: PostgreSQL's largest integer type is int8")
        }
        return fitting
    }

    /// The value of a `DatabaseValue`, which a custom ``DatabaseValueConvertible`` type of `type` gave.
    static func make(databaseValue: DatabaseValue, of type: Any.Type) throws -> PostgresValue {
        switch databaseValue {
        case .null: .null
        case .integer(let value): .int8(value)
        case .real(let value): double(value)
        case .text(let value): .text(value)
        case .blob(let value): .bytea(Array(value))
        }
    }

    /// A Double as `float8`, unless PostgreSQL's conversion of a `float8` to `numeric` would lose some of its digits:
    /// then as `numeric`, in its shortest text that reads back as the same Double.
    ///
    /// PostgreSQL converts a `float8` into a `numeric` column with 15 significant digits (`DBL_DIG`), so that
    /// `0.1 + 0.2` would be stored as `0.3` and `Double.greatestFiniteMagnitude` come back infinite. A normal Double
    /// whose shortest round-trip text has at most 15 significant digits (and ±0, the infinities and NaN) goes as
    /// `float8`, binary, which that conversion keeps exactly; any other as that text typed `numeric`, which a
    /// `numeric` column stores digit for digit and a `double precision` column reads back as the same Double
    /// (PostgreSQL's `numeric` to `float8` conversion parses the text). Both types work where either does: in
    /// comparisons with integer, `numeric` and `double precision` columns and in arithmetic.
    static func double(_ value: Double) -> PostgresValue {
        guard value.isFinite, value != 0 else { return .float8(value) }
        let text = value.description
        // A subnormal has fewer digits of precision than 15: PostgreSQL's 15 would not be its shortest text.
        return value.isNormal && significantDigits(text) <= 15 ? .float8(value) : .numeric(text)
    }

    /// A Float as `float4`, or as `numeric` text as ``double(_:)`` says, with PostgreSQL's 6 digits (`FLT_DIG`) of
    /// a `float4` converted to `numeric`.
    static func float(_ value: Float) -> PostgresValue {
        guard value.isFinite, value != 0 else { return .float4(value) }
        let text = value.description
        return value.isNormal && significantDigits(text) <= 6 ? .float4(value) : .numeric(text)
    }

    /// The number of significant digits of a number's text (`0.30000000000000004`, `1e-05`), without the leading
    /// and trailing zeros and the exponent.
    static func significantDigits(_ text: String) -> Int {
        var count = 0
        var zeros = 0
        var started = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { continue }
            if byte == UInt8(ascii: "0") {
                if started { zeros += 1 }
            } else {
                started = true
                count += zeros + 1
                zeros = 0
            }
        }
        return count
    }

    /// `value` as `jsonb`, in the JSON Strata writes for nested values on SQLite.
    static func json<T: Encodable>(_ value: T) throws -> PostgresValue {
        switch try NestedValueCoding.encode(value, strategy: .json) {
        case .text(let text): return .jsonb(text)
        default:
            throw DatabaseError(code: .invalidValue, message: "could not encode \(T.self) as JSON")
        }
    }

    // MARK: To the wire

    /// Appends the value to `bindings`.
    func append(to bindings: inout PostgresBindings) throws {
        if case .null = self {
            bindings.appendNull()
        } else {
            try bindings.append(PostgresWireValue(value: self))
        }
    }
}

/// A non-NULL ``PostgresValue`` as postgres-nio encodes it.
struct PostgresWireValue: PostgresThrowingDynamicTypeEncodable {
    /// The value to send.
    let value: PostgresValue

    /// The PostgreSQL type the value is sent as; none (OID 0) for text, whose type the server infers.
    var psqlType: PostgresDataType {
        switch value {
        case .null: .null
        case .int8: .int8
        case .float8: .float8
        case .float4: .float4
        case .bool: .bool
        case .text: Self.unspecified
        case .bytea: .bytea
        case .uuid: .uuid
        case .timestamptz: .timestamptz
        case .numeric: .numeric
        case .jsonb: .jsonb
        }
    }

    /// No type: PostgreSQL infers the parameter's type from its place, as for a string literal.
    static let unspecified = PostgresDataType(0)

    /// Binary, but for numeric, sent as text so that no digit is lost, and for untyped text, which the server reads
    /// with the input function of the type it infers (a `jsonb` or an enum has a binary format of its own).
    var psqlFormat: PostgresFormat {
        switch value {
        case .numeric, .text: .text
        default: .binary
        }
    }

    /// Writes the value in postgres-nio's wire format.
    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) throws {
        switch value {
        case .null: break
        case .int8(let value): buffer.writeInteger(value)
        case .float8(let value): buffer.writeInteger(value.bitPattern)
        case .float4(let value): buffer.writeInteger(value.bitPattern)
        case .bool(let value): buffer.writeInteger(value ? UInt8(1) : 0)
        case .text(let value), .numeric(let value): buffer.writeString(value)
        case .bytea(let value): buffer.writeBytes(value)
        case .uuid(let value): _ = withUnsafeBytes(of: value.uuid) { buffer.writeBytes($0) }
        case .timestamptz(let value): buffer.writeInteger(try Self.microseconds(of: value))
        case .jsonb(let value):
            buffer.writeInteger(UInt8(1))  // jsonb's binary format version
            buffer.writeString(value)
        }
    }

    /// Microseconds from PostgreSQL's epoch to `date`, rounded to the nearest: timestamptz keeps microseconds.
    /// `Date.distantFuture` and `Date.distantPast` are PostgreSQL's `infinity` and `-infinity`, which read back as
    /// them.
    static func microseconds(of date: Date) throws -> Int64 {
        if date == .distantFuture { return .max }
        if date == .distantPast { return .min }
        let seconds = date.timeIntervalSince1970 - Double(PostgresValue.postgresEpochOffset)
        // Int64.min and Int64.max are PostgreSQL's -infinity and infinity: never a finite date's.
        guard let microseconds = Int64(exactly: (seconds * 1_000_000).rounded()), microseconds != .min,
            microseconds != .max
        else {
            throw DatabaseError(
                code: .valueOutOfRange, message: "could not store a Date as a timestamptz: out of range")
        }
        return microseconds
    }
}

/// Thrown by ``PostgresColumnEncoder`` when a value asks for a container: it is stored whole as `jsonb`.
struct NestedValue: Error {}

/// Encodes one value of a type Strata does not know into one column: a raw-value enum or a custom single-value
/// type gives the value it encodes; a value that asks for a keyed or unkeyed container is nested (stored as jsonb).
final class PostgresColumnEncoder: Encoder, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value encoded, nil until one is.
    private(set) var result: PostgresValue?

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(NestedSignalContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { NestedSignalUnkeyedContainer() }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { result = .null }
    func encode(_ value: Bool) throws { result = .bool(value) }
    func encode(_ value: String) throws { result = .text(value) }
    func encode(_ value: Double) throws { result = PostgresValue.double(value) }
    func encode(_ value: Float) throws { result = PostgresValue.float(value) }
    func encode(_ value: Int) throws { result = .int8(Int64(value)) }
    func encode(_ value: Int8) throws { result = .int8(Int64(value)) }
    func encode(_ value: Int16) throws { result = .int8(Int64(value)) }
    func encode(_ value: Int32) throws { result = .int8(Int64(value)) }
    func encode(_ value: Int64) throws { result = .int8(value) }
    func encode(_ value: UInt) throws { result = try PostgresValue.make(value) }
    func encode(_ value: UInt8) throws { result = .int8(Int64(value)) }
    func encode(_ value: UInt16) throws { result = .int8(Int64(value)) }
    func encode(_ value: UInt32) throws { result = .int8(Int64(value)) }
    func encode(_ value: UInt64) throws { result = try PostgresValue.make(value) }
    func encode<T: Encodable>(_ value: T) throws { result = try PostgresValue.make(value) }
}

/// The keyed container of a nested value: its first use stops the column encoding, which then stores the value
/// as JSON.
private struct NestedSignalContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { throw NestedValue() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw NestedValue() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(NestedSignalContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NestedSignalUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { PostgresColumnEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { PostgresColumnEncoder() }
}

/// The unkeyed container of a nested value, as ``NestedSignalContainer``.
private struct NestedSignalUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws { throw NestedValue() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw NestedValue() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(NestedSignalContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { NestedSignalUnkeyedContainer() }
    mutating func superEncoder() -> any Encoder { PostgresColumnEncoder() }
}
