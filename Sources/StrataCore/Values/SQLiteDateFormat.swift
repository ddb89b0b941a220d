import Foundation

/// SQLite's own date text, `YYYY-MM-DD HH:MM:SS.SSS` in UTC, and the ISO 8601 forms users write.
///
/// Written by hand rather than with `DateFormatter`: it is several times faster, has no locale
/// or time-zone state, and is safe from any thread.
enum SQLiteDateFormat {
    private static let secondsPerDay: Int64 = 86_400

    /// `YYYY-MM-DD HH:MM:SS.SSS` in UTC, rounded to the millisecond; nil for years outside 0000...9999,
    /// where the text would no longer sort chronologically.
    static func string(from date: Date) -> String? {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard let milliseconds = Int64(exactly: totalMilliseconds) else { return nil }
        let (days, msOfDay) = floorDivide(milliseconds, secondsPerDay * 1000)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else { return nil }
        let seconds = msOfDay / 1000
        var text = ""
        text.reserveCapacity(23)
        append(year, width: 4, to: &text)
        text.append("-")
        append(month, width: 2, to: &text)
        text.append("-")
        append(day, width: 2, to: &text)
        text.append(" ")
        append(seconds / 3600, width: 2, to: &text)
        text.append(":")
        append(seconds / 60 % 60, width: 2, to: &text)
        text.append(":")
        append(seconds % 60, width: 2, to: &text)
        text.append(".")
        append(msOfDay % 1000, width: 3, to: &text)
        return text
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fraction]]` with ` ` or `T` between date and time,
    /// and an optional `Z`, `±HH:MM` or `±HHMM` offset (UTC when there is none, as SQLite reads it).
    static func date(from text: String) -> Date? {
        var parser = Parser(Array(text.utf8))
        guard let year = parser.digits(4), parser.skip("-"),
            let month = parser.digits(2), parser.skip("-"),
            let day = parser.digits(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var secondsOfDay: Int64 = 0
        var fraction: Double = 0
        var offsetSeconds: Int64 = 0
        if !parser.atEnd {
            guard parser.skip(" ") || parser.skip("T") || parser.skip("t"),
                let hour = parser.digits(2), parser.skip(":"), let minute = parser.digits(2),
                hour < 24, minute < 60
            else { return nil }
            var second: Int64 = 0
            if parser.skip(":") {
                guard let value = parser.digits(2), value < 60 else { return nil }
                second = value
                if parser.skip(".") {
                    guard let value = parser.fraction() else { return nil }
                    fraction = value
                }
            }
            secondsOfDay = hour * 3600 + minute * 60 + second
            if parser.skip("Z") || parser.skip("z") {
                offsetSeconds = 0
            } else if let sign = parser.sign() {
                guard let hours = parser.digits(2), hours < 24 else { return nil }
                _ = parser.skip(":")
                guard let minutes = parser.digits(2), minutes < 60 else { return nil }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard parser.atEnd else { return nil }
        let days = days(fromCivil: year, month, day)
        let seconds = days * secondsPerDay + secondsOfDay - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, UTC)

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a count of days since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b
        let remainder = a % b
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.utf8.count < width {
            text.append(String(repeating: "0", count: width - digits.utf8.count))
        }
        text.append(digits)
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }

        /// One or more digits after the decimal point, as a fraction of a second.
        mutating func fraction() -> Double? {
            var value: Double = 0
            var scale: Double = 1
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                scale /= 10
                value += Double(bytes[position] - UInt8(ascii: "0")) * scale
                position += 1
            }
            return position > start ? value : nil
        }

        mutating func sign() -> Int64? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
