public import Foundation

/// Stored per ``DateStrategy`` (`.text` by default); reads what any strategy wrote, whatever the
/// column's affinity turned it into.
///
/// The strategy-free `databaseValue` writes `.text`. Reading a number follows the reading strategy,
/// which is the writing one unless a decoder overrides it:
///
/// | stored | `.text`, `.integer` | `.unixMilliseconds` | `.real` |
/// | --- | --- | --- | --- |
/// | INTEGER | Unix seconds | Unix milliseconds | Julian day |
/// | integral REAL | Julian day (`.text`), Unix seconds (`.integer`) | Unix milliseconds | Julian day |
/// | other REAL | Julian day | Julian day | Julian day |
/// | TEXT spelling a number | as that INTEGER or REAL | as that INTEGER or REAL | as that INTEGER or REAL |
///
/// So a date written as seconds into a TEXT column (stored as the text `"1700000000"`), as a Julian day
/// into an INTEGER column (an integral one is stored as INTEGER) or as seconds into a REAL column
/// (stored as `1700000000.0`) reads back as the date that was written.
extension Date: DatabaseValueConvertible, StrategyAwareValue {
    public var databaseValue: DatabaseValue {
        // A date outside years 0000...9999 has no sortable text; store its Julian day, which reads back as REAL does.
        SQLiteDateFormat.string(from: self).map(DatabaseValue.text)
            ?? .real(timeIntervalSince1970 / 86_400 + Self.julianDayOfUnixEpoch)
    }

    public init(databaseValue: DatabaseValue) throws {
        try self.init(databaseValue: databaseValue, using: ValueStrategies())
    }

    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        switch strategies.date {
        case .text:
            guard let text = SQLiteDateFormat.string(from: self) else {
                throw DatabaseError(
                    code: .valueOutOfRange,
                    message: "could not store Date as TEXT: its year is outside 0000...9999")
            }
            return .text(text)
        case .integer:
            guard let seconds = Int64(exactly: timeIntervalSince1970.rounded(.down)) else {
                throw DatabaseError(code: .valueOutOfRange, message: "could not store Date as INTEGER seconds")
            }
            return .integer(seconds)
        case .unixMilliseconds:
            guard let milliseconds = Int64(exactly: (timeIntervalSince1970 * 1000).rounded()) else {
                throw DatabaseError(code: .valueOutOfRange, message: "could not store Date as INTEGER milliseconds")
            }
            return .integer(milliseconds)
        case .real:
            return .real(timeIntervalSince1970 / 86_400 + Self.julianDayOfUnixEpoch)
        }
    }

    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        switch databaseValue {
        case .integer(let value):
            switch strategies.date {
            case .unixMilliseconds: self.init(timeIntervalSince1970: Double(value) / 1000)
            case .real: try self.init(databaseValue: .real(Double(value)), using: strategies)
            case .text, .integer: self.init(timeIntervalSince1970: Double(value))
            }
        case .real(let value)
        where strategies.date != .real && strategies.date != .text
            && value.isFinite && value.rounded(.towardZero) == value && Int64(exactly: value) != nil:
            // Whole seconds or milliseconds that a REAL column stored as REAL.
            try self.init(databaseValue: .integer(Int64(value)), using: strategies)
        case .real(let julianDay):
            guard julianDay.isFinite else {
                throw DatabaseError.conversion(.invalidValue, from: databaseValue, to: Date.self, reason: "not finite")
            }
            // A finite Julian day above about 1e303 still overflows to infinite seconds.
            let seconds = (julianDay - Self.julianDayOfUnixEpoch) * 86_400
            guard seconds.isFinite else {
                throw DatabaseError.conversion(
                    .valueOutOfRange, from: databaseValue, to: Date.self, reason: "out of range")
            }
            self.init(timeIntervalSince1970: seconds)
        case .text(let text):
            if let number = Self.number(spelledBy: text) {
                try self.init(databaseValue: number, using: strategies)
                return
            }
            guard let date = SQLiteDateFormat.date(from: text) else {
                throw DatabaseError.conversion(
                    .invalidValue, from: databaseValue, to: Date.self, reason: "not a date in a known format")
            }
            self = date
        case .null:
            throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: Date.self)
        case .blob:
            throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: Date.self)
        }
    }

    /// The INTEGER or REAL that `text` spells, as a column with TEXT affinity stores a number: `"1700000000"`,
    /// `"2460263.5"`. Nil for anything else, such as date text.
    private static func number(spelledBy text: String) -> DatabaseValue? {
        guard let first = text.utf8.first,
            first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            Decimal.isDecimalNumber(text)
        else { return nil }
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(DatabaseValue.real)
    }

    /// The Julian day of 1970-01-01 00:00:00 UTC.
    static let julianDayOfUnixEpoch = 2_440_587.5
}
