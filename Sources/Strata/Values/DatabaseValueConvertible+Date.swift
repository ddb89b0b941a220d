public import Foundation

/// Stored per ``DateStrategy`` (`.text` by default); reads what any strategy wrote.
///
/// The strategy-free `databaseValue` writes `.text`. Reading INTEGER without a strategy takes
/// Unix seconds.
extension Date: DatabaseValueConvertible, StrategyAwareValue {
    public var databaseValue: DatabaseValue {
        // A date outside years 0000...9999 has no sortable text; store its Julian day, which reads back as REAL does.
        SQLiteDateFormat.string(from: self).map(DatabaseValue.text)
            ?? .real(timeIntervalSince1970 / 86_400 + Self.julianDayOfUnixEpoch)
    }

    public init(databaseValue: DatabaseValue) throws {
        try self.init(databaseValue: databaseValue, using: ValueStrategies())
    }

    func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
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

    init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        switch databaseValue {
        case .integer(let value):
            if strategies.date == .unixMilliseconds {
                self.init(timeIntervalSince1970: Double(value) / 1000)
            } else {
                self.init(timeIntervalSince1970: Double(value))
            }
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

    /// The Julian day of 1970-01-01 00:00:00 UTC.
    static let julianDayOfUnixEpoch = 2_440_587.5
}
