public import Foundation

/// Stored as TEXT. Only TEXT reads as String: numbers and blobs throw.
extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .text(let value): self = value
        case .null: throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: String.self)
        default: throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: String.self)
        }
    }
}

/// Stored as BLOB. TEXT reads as its UTF-8 bytes.
extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .blob(let value): self = value
        case .text(let value): self = Data(value.utf8)
        case .null: throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: Data.self)
        default: throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: Data.self)
        }
    }
}

/// Stored per ``UUIDStrategy`` (a 16-byte BLOB by default); reads a 16-byte BLOB or UUID text.
extension UUID: DatabaseValueConvertible, StrategyAwareValue {
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }

    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .blob(let data):
            guard data.count == 16 else {
                throw DatabaseError.conversion(
                    .invalidValue, from: databaseValue, to: UUID.self, reason: "\(data.count) bytes, not 16")
            }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            self = UUID(uuid: bytes)
        case .text(let text):
            guard let uuid = UUID(uuidString: text) else {
                throw DatabaseError.conversion(.invalidValue, from: databaseValue, to: UUID.self, reason: "not a UUID")
            }
            self = uuid
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: UUID.self)
        default:
            throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: UUID.self)
        }
    }

    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        switch strategies.uuid {
        case .blob: databaseValue
        case .text: .text(uuidString)
        }
    }

    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        try self.init(databaseValue: databaseValue)
    }
}

/// Stored as TEXT, the absolute string.
extension URL: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(absoluteString) }
    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .text(let text):
            guard let url = URL(string: text) else {
                throw DatabaseError.conversion(.invalidValue, from: databaseValue, to: URL.self, reason: "not a URL")
            }
            self = url
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: URL.self)
        default:
            throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: URL.self)
        }
    }
}

/// Stored as TEXT, so that no digit is lost; reads TEXT, INTEGER and REAL.
///
/// **Declare a Decimal column `TEXT`.** In a column with NUMERIC, DECIMAL, INTEGER or REAL affinity
/// SQLite turns number-like text into a REAL, which keeps 15 significant digits: a Decimal with more
/// would lose digits. Records (`insert`, `update`, `upsert`) check the column and throw instead; with
/// hand-written SQL the declaration is up to you. A REAL reads back as the shortest decimal that
/// names it (`0.1`, not `0.1000000000000000055...`), so a Decimal of up to 15 digits survives any
/// affinity.
extension Decimal: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(description) }
    public init(databaseValue: DatabaseValue) throws {
        switch databaseValue {
        case .text(let text):
            // Decimal(string:) reads a number off the front of "1-2" or "1.5abc": check the whole text first.
            guard Self.isDecimalNumber(text),
                let decimal = Decimal(string: text, locale: Self.posix),
                !decimal.isNaN
            else {
                throw DatabaseError.conversion(
                    .invalidValue, from: databaseValue, to: Decimal.self, reason: "not a number")
            }
            self = decimal
        case .integer(let value):
            self = Decimal(value)
        case .real(let value):
            // Decimal(Double) spells out the binary value (0.1 becomes 0.1000000000000000055...); the shortest
            // text that reads back as the same Double is the number that was stored.
            guard value.isFinite, let decimal = Decimal(string: value.description, locale: Self.posix) else {
                throw DatabaseError.conversion(
                    .invalidValue, from: databaseValue, to: Decimal.self, reason: "not finite")
            }
            self = decimal
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: Decimal.self)
        case .blob:
            throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: Decimal.self)
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// More significant digits than a REAL keeps: stored in a column with numeric affinity, such a value
    /// would lose digits (see `Database.checkDecimalColumns`).
    package var hasMoreDigitsThanAREAL: Bool {
        var digits = description.utf8.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }[...]
        while digits.first == UInt8(ascii: "0") { digits = digits.dropFirst() }
        while digits.last == UInt8(ascii: "0") { digits = digits.dropLast() }
        return digits.count > 15
    }

    /// Whether `text` is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one digit before the exponent.
    static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func skipDigits() -> Int {
            let count = bytes.prefix(while: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        func skip(_ characters: String) -> Bool {
            guard let first = bytes.first, characters.utf8.contains(first) else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        _ = skip("+-")
        var digits = skipDigits()
        if skip(".") { digits += skipDigits() }
        guard digits > 0 else { return false }
        if skip("eE") {
            _ = skip("+-")
            guard skipDigits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
