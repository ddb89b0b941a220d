import Foundation
internal import PostgresNIO
internal import StrataCore

/// Reads Swift values from the cells of PostgreSQL rows, with the rules of Strata's `RowDecoder` on SQLite:
/// NULL read as a non-optional throws, an integer that does not fit the requested width throws instead of
/// truncating, a value of a type that cannot become the requested one throws; each error names the column, the
/// stored PostgreSQL type and the expected Swift type:
/// `could not decode Int8 from BIGINT (out of range) - column "n" (index 0)`.
enum PostgresCellReader {
    /// `cell` as `T` when `T` is a built-in type, a nested value read from JSON (an array, a set, a dictionary), or a
    /// storable type read through its `DatabaseValue`; nil for any other type, which StrataCore's decoder reads as a
    /// single value. Throws a `DatabaseError` when the value cannot be a `T`.
    static func known<T: Decodable>(_ type: T.Type, from cell: PostgresCell) throws -> T? {
        if let optional = T.self as? any PostgresOptional.Type {
            guard cell.bytes != nil else { return try cast(optional.nilValue, to: T.self) }
            return try optional.knownWrapped(from: cell).map { try cast($0, to: T.self) }
        }
        guard var bytes = cell.bytes else {
            // A storable type says what NULL is (nil for an optional, an error otherwise); any other type reads NULL
            // through its single value.
            guard let convertible = T.self as? any DatabaseValueConvertible.Type else { return nil }
            return try cast(convertible.init(databaseValue: .null), to: T.self)
        }
        if let known = try known(T.self, from: &bytes, cell: cell) {
            return try cast(known, to: T.self)
        }
        if T.self is any Sequence.Type {
            return try json(T.self, from: bytes, cell: cell)
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            let value = try databaseValue(bytes, cell: cell, as: T.self)
            do {
                return try cast(convertible.init(databaseValue: value), to: T.self)
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw DatabaseError(
                    code: .invalidValue, message: "could not decode \(T.self) from \(cell.dataType): \(error)",
                    underlyingError: error)
            }
        }
        return nil
    }

    /// A nested value (a struct that asked for a keyed container) from `cell`'s JSON.
    static func nested<T: Decodable>(_ type: T.Type, from cell: PostgresCell) throws -> T {
        guard let bytes = cell.bytes else {
            throw DatabaseError(code: .unexpectedNull, message: "could not decode \(T.self) from NULL")
        }
        return try json(T.self, from: bytes, cell: cell)
    }

    /// `value` as `T`, which it is: `value` was made for `T.self` seen through a protocol.
    private static func cast<T>(_ value: Any, to type: T.Type) throws -> T {
        guard let result = value as? T else {
            throw DatabaseError(code: .typeMismatch, message: "could not decode \(T.self)")
        }
        return result
    }

    // MARK: Built-in types

    /// A value of one of the built-in types, or nil when `T` is another type.
    private static func known<T>(_ type: T.Type, from bytes: inout ByteBuffer, cell: PostgresCell) throws -> Any? {
        // Compared, not cast: the metatype of an array of another element type must not pass for [UInt8]'s.
        if T.self == [UInt8].self {
            return try byteArray(bytes, cell: cell, as: T.self)
        }
        switch T.self {
        case is String.Type: return try string(bytes, cell: cell, as: T.self)
        case is Bool.Type: return try bool(bytes, cell: cell)
        case is Int.Type: return try fitting(Int.self, bytes, cell)
        case is Int8.Type: return try fitting(Int8.self, bytes, cell)
        case is Int16.Type: return try fitting(Int16.self, bytes, cell)
        case is Int32.Type: return try fitting(Int32.self, bytes, cell)
        case is Int64.Type: return try fitting(Int64.self, bytes, cell)
        case is UInt.Type: return try fitting(UInt.self, bytes, cell)
        case is UInt8.Type: return try fitting(UInt8.self, bytes, cell)
        case is UInt16.Type: return try fitting(UInt16.self, bytes, cell)
        case is UInt32.Type: return try fitting(UInt32.self, bytes, cell)
        case is UInt64.Type: return try fitting(UInt64.self, bytes, cell)
        case is Double.Type: return try double(bytes, cell: cell, as: T.self)
        case is Float.Type: return try float(bytes, cell: cell)
        case is Decimal.Type: return try decimal(bytes, cell: cell)
        case is Date.Type: return try date(bytes, cell: cell)
        case is UUID.Type: return try uuid(bytes, cell: cell)
        case is Data.Type: return try data(bytes, cell: cell)
        case is URL.Type:
            let text = try string(bytes, cell: cell, as: T.self)
            guard let url = URL(string: text) else {
                throw DatabaseError(
                    code: .invalidValue, message: "could not decode URL from \(cell.dataType) (not a URL)")
            }
            return url
        case is DatabaseValue.Type: return try databaseValue(bytes, cell: cell, as: T.self)
        default: return nil
        }
    }

    /// A Bool from bool, or an integer that is 0 or 1.
    private static func bool(_ bytes: ByteBuffer, cell: PostgresCell) throws -> Bool {
        var bytes = bytes
        if cell.dataType == .bool, cell.format == .binary, let byte = bytes.readInteger(as: UInt8.self) {
            return byte != 0
        }
        let integer = try integer(bytes, cell: cell, as: Bool.self)
        guard integer == 0 || integer == 1 else { throw outOfRange(Bool.self, cell) }
        return integer == 1
    }

    // MARK: Standard library types, without casts

    /// Reads a `String` as ``known(_:from:)`` does, without its dynamic casts: for the concrete reads of the row's
    /// keyed container.
    static func string(from cell: PostgresCell) throws -> String {
        try read(String.self, cell) { try string($0, cell: cell, as: String.self) }
    }

    /// Reads a `Bool` as ``known(_:from:)`` does, without its dynamic casts.
    static func bool(from cell: PostgresCell) throws -> Bool {
        try read(Bool.self, cell) { try bool($0, cell: cell) }
    }

    /// Reads a `Double` as ``known(_:from:)`` does, without its dynamic casts.
    static func double(from cell: PostgresCell) throws -> Double {
        try read(Double.self, cell) { try double($0, cell: cell, as: Double.self) }
    }

    /// Reads a `Float` as ``known(_:from:)`` does, without its dynamic casts.
    static func float(from cell: PostgresCell) throws -> Float {
        try read(Float.self, cell) { try float($0, cell: cell) }
    }

    /// Reads an integer of width `I` as ``known(_:from:)`` does, without its dynamic casts.
    static func integer<I: FixedWidthInteger>(_ type: I.Type, from cell: PostgresCell) throws -> I {
        try read(I.self, cell) { try fitting(I.self, $0, cell) }
    }

    /// `read` of the cell's bytes: NULL throws.
    private static func read<T>(_ type: T.Type, _ cell: PostgresCell, _ read: (ByteBuffer) throws -> T) throws -> T {
        guard let bytes = cell.bytes else {
            throw DatabaseError(code: .unexpectedNull, message: "could not decode \(T.self) from NULL")
        }
        return try read(bytes)
    }

    /// `could not decode Int from TEXT`.
    private static func mismatch(_ type: Any.Type, _ cell: PostgresCell) -> DatabaseError {
        DatabaseError(code: .typeMismatch, message: "could not decode \(type) from \(cell.dataType)")
    }

    /// `could not decode Int8 from INTEGER (out of range)`.
    private static func outOfRange(_ type: Any.Type, _ cell: PostgresCell) -> DatabaseError {
        DatabaseError(code: .valueOutOfRange, message: "could not decode \(type) from \(cell.dataType) (out of range)")
    }

    /// Whether the cell holds text: PostgreSQL's string types, or any type sent in text format.
    private static func isText(_ cell: PostgresCell) -> Bool {
        cell.format == .text || [.text, .varchar, .bpchar, .name].contains(cell.dataType)
    }

    /// A string from a text type, json, jsonb (without its version byte), numeric (its exact text) or uuid.
    private static func string(_ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type) throws -> String {
        if isText(cell) || cell.dataType == .json {
            return String(buffer: bytes)
        }
        switch cell.dataType {
        case .jsonb:
            var bytes = bytes
            guard bytes.readInteger(as: UInt8.self) == 1 else { throw mismatch(type, cell) }
            return String(buffer: bytes)
        case .numeric:
            return try numericText(bytes, cell: cell)
        case .uuid:
            return try uuid(bytes, cell: cell).uuidString
        default:
            guard let text = userDefinedText(bytes, cell: cell) else { throw mismatch(type, cell) }
            return text
        }
    }

    /// The text of a value of a type defined in the database (an enum, or an extension's type such as `citext`),
    /// or nil when it is not one or its bytes are not text.
    ///
    /// postgres-nio asks for every column in binary format. The binary format of an enum or a `citext` is its text;
    /// a domain arrives as its base type. Any other type of the database has a binary format of its own, which
    /// starts with a length, a count or a version (a byte below 0x20): such a value is refused, never read as text.
    private static func userDefinedText(_ bytes: ByteBuffer, cell: PostgresCell) -> String? {
        // FirstNormalObjectId: the types below are PostgreSQL's own, each with its own binary format.
        guard cell.dataType.rawValue >= 16_384 else { return nil }
        let view = bytes.readableBytesView
        guard !view.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return nil }
        return String(validating: view, as: UTF8.self)
    }

    /// An integer from int2, int4, int8, oid, or an integral float8, float4 or numeric.
    private static func integer(_ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type) throws -> Int64 {
        var bytes = bytes
        if cell.format == .binary {
            switch cell.dataType {
            case .int2: if let value = bytes.readInteger(as: Int16.self) { return Int64(value) }
            case .int4: if let value = bytes.readInteger(as: Int32.self) { return Int64(value) }
            case .oid: if let value = bytes.readInteger(as: UInt32.self) { return Int64(value) }
            case .int8: if let value = bytes.readInteger(as: Int64.self) { return value }
            case .numeric: return try numericInteger(Int64.self, bytes, cell: cell, as: type)
            case .float4, .float8:
                let value = try double(bytes, cell: cell, as: type)
                guard value.rounded() == value else {
                    throw DatabaseError(
                        code: .typeMismatch,
                        message: "could not decode \(type) from \(cell.dataType) (not an integer)")
                }
                guard let integer = Int64(exactly: value) else { throw outOfRange(type, cell) }
                return integer
            default: break
            }
            throw mismatch(type, cell)
        }
        guard let integer = Int64(String(buffer: bytes)) else { throw mismatch(type, cell) }
        return integer
    }

    /// An integer of width `I`, or an error when the stored integer does not fit: never truncated.
    private static func fitting<I: FixedWidthInteger>(_ type: I.Type, _ bytes: ByteBuffer, _ cell: PostgresCell)
        throws -> I
    {
        // A numeric is read digit by digit into `I` itself: a UInt64 above Int64.max fits it.
        if cell.dataType == .numeric, cell.format == .binary {
            return try numericInteger(I.self, bytes, cell: cell, as: I.self)
        }
        guard let value = I(exactly: try integer(bytes, cell: cell, as: I.self)) else {
            throw outOfRange(I.self, cell)
        }
        return value
    }

    /// A floating-point number from float4, float8, an integer type or numeric.
    private static func double(_ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type) throws -> Double {
        var bytes = bytes
        if cell.format == .binary {
            switch cell.dataType {
            case .float8: if let bits = bytes.readInteger(as: UInt64.self) { return Double(bitPattern: bits) }
            case .float4: if let bits = bytes.readInteger(as: UInt32.self) { return Double(Float(bitPattern: bits)) }
            case .int2, .int4, .int8, .oid: return Double(try integer(bytes, cell: cell, as: type))
            case .numeric:
                let text = try numericText(bytes, cell: cell)
                guard let value = Double(text) else { break }
                // A numeric beyond Double's range would parse as an infinity.
                guard value.isFinite || text == "NaN" || text.hasSuffix("Infinity") else {
                    throw outOfRange(type, cell)
                }
                return value
            default: break
            }
            throw mismatch(type, cell)
        }
        guard let value = Double(String(buffer: bytes)) else { throw mismatch(type, cell) }
        return value
    }

    /// A Float from what ``double(_:cell:as:)`` reads, or an error for a finite value beyond Float's range, which
    /// would become an infinity.
    private static func float(_ bytes: ByteBuffer, cell: PostgresCell) throws -> Float {
        let value = try double(bytes, cell: cell, as: Float.self)
        let float = Float(value)
        guard float.isFinite || !value.isFinite else { throw outOfRange(Float.self, cell) }
        return float
    }

    /// An exact Decimal from numeric (through its text, so no digit goes through a Double), an integer or text.
    private static func decimal(_ bytes: ByteBuffer, cell: PostgresCell) throws -> Decimal {
        let text: String
        switch cell.dataType {
        case .numeric where cell.format == .binary: text = try numericText(bytes, cell: cell)
        case .int2, .int4, .int8: text = String(try integer(bytes, cell: cell, as: Decimal.self))
        default:
            guard isText(cell) else { throw mismatch(Decimal.self, cell) }
            text = String(buffer: bytes)
        }
        switch text {
        case "NaN": return .nan
        case "Infinity", "-Infinity": throw outOfRange(Decimal.self, cell)
        default: break
        }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw DatabaseError(
                code: .invalidValue, message: "could not decode Decimal from \(cell.dataType) (not a decimal number)")
        }
        // Decimal keeps 38 significant digits and rounds the rest away: a longer number throws instead.
        guard isExact(value, text) else {
            throw DatabaseError(
                code: .valueOutOfRange,
                message: "could not decode Decimal from \(cell.dataType) (more digits than Decimal holds)")
        }
        return value
    }

    /// Whether `value`, read from `text`, has every digit of it.
    private static func isExact(_ value: Decimal, _ text: String) -> Bool {
        guard !text.contains(where: { $0 == "e" || $0 == "E" }) else {
            return PostgresValue.significantDigits(text) <= 38
        }
        return normalized(value.description) == normalized(text)
    }

    /// A number's plain text without its sign, leading zeros, trailing zeros after the point and a bare point,
    /// with `-` before anything other than zero: `-007.50` is `-7.5`, `-0.0` is `0`.
    private static func normalized(_ text: String) -> String {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        digits = digits.drop(while: { $0 == "0" })
        if digits.contains(".") {
            while digits.last == "0" { digits = digits.dropLast() }
            if digits.last == "." { digits = digits.dropLast() }
        }
        if digits.isEmpty || digits == "." { return "0" }
        return (negative ? "-" : "") + digits
    }

    /// A date from timestamptz or timestamp (microseconds from 2000-01-01 UTC), or date (days from then).
    private static func date(_ bytes: ByteBuffer, cell: PostgresCell) throws -> Date {
        var bytes = bytes
        guard cell.format == .binary else { throw mismatch(Date.self, cell) }
        switch cell.dataType {
        case .timestamptz, .timestamp:
            guard let microseconds = bytes.readInteger(as: Int64.self) else { throw mismatch(Date.self, cell) }
            // PostgreSQL's infinity and -infinity.
            if microseconds == .max { return .distantFuture }
            if microseconds == .min { return .distantPast }
            // Whole seconds and the fraction apart, so that the sum is rounded once.
            let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
            return Date(
                timeIntervalSince1970: Double(seconds + PostgresValue.postgresEpochOffset) + Double(fraction) / 1e6)
        case .date:
            guard let days = bytes.readInteger(as: Int32.self) else { throw mismatch(Date.self, cell) }
            if days == .max { return .distantFuture }
            if days == .min { return .distantPast }
            return Date(timeIntervalSince1970: Double(Int64(days) * 86_400 + PostgresValue.postgresEpochOffset))
        default:
            throw mismatch(Date.self, cell)
        }
    }

    /// A UUID from uuid (16 bytes) or its text.
    private static func uuid(_ bytes: ByteBuffer, cell: PostgresCell) throws -> UUID {
        var bytes = bytes
        if cell.dataType == .uuid, cell.format == .binary {
            guard let raw = bytes.readBytes(length: 16), bytes.readableBytes == 0 else {
                throw mismatch(UUID.self, cell)
            }
            return UUID(
                uuid: (
                    raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                    raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]
                ))
        }
        guard isText(cell) else { throw mismatch(UUID.self, cell) }
        guard let uuid = UUID(uuidString: String(buffer: bytes)) else {
            throw DatabaseError(
                code: .invalidValue, message: "could not decode UUID from \(cell.dataType) (not a UUID)")
        }
        return uuid
    }

    /// The bytes of a bytea, copied once.
    private static func data(_ bytes: ByteBuffer, cell: PostgresCell) throws -> Data {
        guard cell.dataType == .bytea || cell.format == .text else { throw mismatch(Data.self, cell) }
        return Data(bytes.readableBytesView)
    }

    /// The bytes of a bytea.
    private static func byteArray(_ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type) throws -> [UInt8] {
        guard cell.dataType == .bytea || cell.format == .text else { throw mismatch(type, cell) }
        return Array(bytes.readableBytesView)
    }

    /// The cell as one of SQLite's storage classes, for a custom ``DatabaseValueConvertible`` type.
    private static func databaseValue(_ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type) throws
        -> DatabaseValue
    {
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return .integer(try integer(bytes, cell: cell, as: type))
        case .float4, .float8: return .real(try double(bytes, cell: cell, as: type))
        case .bool: return .integer(try known(Bool.self, bytes: bytes, cell: cell) ? 1 : 0)
        case .bytea: return .blob(Data(try byteArray(bytes, cell: cell, as: type)))
        default: return .text(try string(bytes, cell: cell, as: type))
        }
    }

    /// A Bool, as the built-in reading does it, for a storable type's `DatabaseValue`.
    private static func known(_ type: Bool.Type, bytes: ByteBuffer, cell: PostgresCell) throws -> Bool {
        var bytes = bytes
        return try cast(try known(Bool.self, from: &bytes, cell: cell) as Any, to: Bool.self)
    }

    /// A nested value from `json`, `jsonb` or text.
    private static func json<T: Decodable>(_ type: T.Type, from bytes: ByteBuffer, cell: PostgresCell) throws -> T {
        guard isText(cell) || cell.dataType == .json || cell.dataType == .jsonb else { throw mismatch(T.self, cell) }
        let text = try string(bytes, cell: cell, as: T.self)
        return try NestedValueCoding.decode(T.self, from: .text(text))
    }

    // MARK: numeric

    /// The text of a binary `numeric`: every digit, with its scale, as PostgreSQL prints it.
    ///
    /// The binary form is a count of base-10000 digits, the weight of the first, a sign and a display scale, then
    /// the digits: https://github.com/postgres/postgres/blob/master/src/backend/utils/adt/numeric.c (numeric_send).
    static func numericText(_ bytes: ByteBuffer, cell: PostgresCell) throws -> String {
        var bytes = bytes
        guard cell.format == .binary else { return String(buffer: bytes) }
        guard let count = bytes.readInteger(as: Int16.self), let weight = bytes.readInteger(as: Int16.self),
            let sign = bytes.readInteger(as: UInt16.self), let scale = bytes.readInteger(as: Int16.self),
            count >= 0, scale >= 0
        else { throw malformedNumeric(cell) }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        case 0x0000, 0x4000: break
        default: throw malformedNumeric(cell)
        }
        var digits: [Int16] = []
        for _ in 0..<count {
            guard let digit = bytes.readInteger(as: Int16.self), (0..<10_000).contains(digit) else {
                throw malformedNumeric(cell)
            }
            digits.append(digit)
        }
        func group(_ index: Int) -> Int16 { digits.indices.contains(index) ? digits[index] : 0 }
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            for index in 0...Int(weight) {
                let value = String(group(index))
                text += index == 0 ? value : String(repeating: "0", count: 4 - value.count) + value
            }
        }
        if scale > 0 {
            var fraction = ""
            var index = Int(weight) + 1
            while fraction.count < Int(scale) {
                let value = String(group(index))
                fraction += String(repeating: "0", count: 4 - value.count) + value
                index += 1
            }
            text += "." + fraction.prefix(Int(scale))
        }
        return text
    }

    /// A binary `numeric` as an integer of width `I`, read from its base-10000 digits without going through a
    /// Double: an error when it has a fraction or does not fit `I`.
    static func numericInteger<I: FixedWidthInteger>(
        _ width: I.Type, _ bytes: ByteBuffer, cell: PostgresCell, as type: Any.Type
    ) throws -> I {
        var bytes = bytes
        guard let count = bytes.readInteger(as: Int16.self), let weight = bytes.readInteger(as: Int16.self),
            let sign = bytes.readInteger(as: UInt16.self), bytes.readInteger(as: Int16.self) != nil, count >= 0
        else { throw malformedNumeric(cell) }
        switch sign {
        case 0x0000, 0x4000: break
        case 0xC000, 0xD000, 0xF000:
            throw DatabaseError(
                code: .typeMismatch, message: "could not decode \(type) from \(cell.dataType) (not an integer)")
        default: throw malformedNumeric(cell)
        }
        // The value is the sum of digit[i] * 10000^(weight - i); the integer part is the digits up to `weight`.
        var magnitude: UInt64 = 0
        var overflow = false
        for index in 0..<Int(count) {
            guard let digit = bytes.readInteger(as: Int16.self), (0..<10_000).contains(digit) else {
                throw malformedNumeric(cell)
            }
            if index > Int(weight) {
                guard digit == 0 else {
                    throw DatabaseError(
                        code: .typeMismatch, message: "could not decode \(type) from \(cell.dataType) (not an integer)")
                }
                continue
            }
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10_000)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
            magnitude = sum
            overflow = overflow || o1 || o2
        }
        // The zero digits after the last one stored, up to the units.
        if magnitude != 0 {
            for _ in Int(count)..<max(Int(count), Int(weight) + 1) {
                let (shifted, o) = magnitude.multipliedReportingOverflow(by: 10_000)
                magnitude = shifted
                overflow = overflow || o
            }
        }
        guard !overflow else { throw outOfRange(type, cell) }
        if sign == 0x4000, magnitude != 0 {
            // A negative value fits a signed I down to I.min, whose magnitude is one more than I.max's.
            guard I.isSigned, magnitude <= UInt64(I.max) + 1 else { throw outOfRange(type, cell) }
            return I(truncatingIfNeeded: 0 &- magnitude)
        }
        guard let value = I(exactly: magnitude) else { throw outOfRange(type, cell) }
        return value
    }

    /// The error of a numeric whose bytes do not follow PostgreSQL's binary format.
    private static func malformedNumeric(_ cell: PostgresCell) -> DatabaseError {
        DatabaseError(code: .invalidValue, message: "malformed numeric value from the server")
    }
}

/// An optional type, whose NULL reads as nil and any other value as its wrapped type.
protocol PostgresOptional {
    /// The optional's nil.
    static var nilValue: Self { get }
    /// The wrapped value read from a cell that is not NULL, as ``PostgresCellReader/known(_:from:)`` reads it; nil
    /// when the wrapped type is not one it reads.
    static func knownWrapped(from cell: PostgresCell) throws -> Self?
}

extension Optional: PostgresOptional where Wrapped: Decodable {
    static var nilValue: Self { nil }

    static func knownWrapped(from cell: PostgresCell) throws -> Self? {
        try PostgresCellReader.known(Wrapped.self, from: cell).map { .some($0) }
    }
}
