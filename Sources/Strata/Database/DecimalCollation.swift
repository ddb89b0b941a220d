internal import CSQLite
import Foundation

/// `strata_decimal`: the collation that orders text holding decimal numbers by their value, exactly, whatever
/// their length: `9.5` before `10.25`, `10.250` equal to `10.25`. README advises TEXT columns for `Decimal` (a REAL
/// keeps 15 digits); with this collation, comparisons, orderings and `min`/`max` of such columns are numeric.
///
/// Requests add it themselves where a `Decimal` value meets a column (`Column("amount") > Decimal(5)`) and for a
/// `TypedColumn` of `Decimal`; elsewhere ask for it with `collating(.decimal)`, or in SQL with
/// `COLLATE strata_decimal`. Every connection Strata opens has it.
///
/// The order is total, as a collation must be: numbers (an optional sign, digits with an optional point, an optional
/// exponent) by value, then any other text by its bytes.
///
/// See https://www.sqlite.org/datatype3.html#collation
enum DecimalCollation {
    static let name = "strata_decimal"

    /// Registers the collation on `handle`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, nil,
            { _, leftCount, left, rightCount, right in
                let lhs = UnsafeRawBufferPointer(start: left, count: Int(leftCount))
                let rhs = UnsafeRawBufferPointer(start: right, count: Int(rightCount))
                return DecimalCollation.compare(lhs, rhs)
            }, nil)
    }

    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs`.
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        switch (DecimalText(lhs), DecimalText(rhs)) {
        case (let left?, let right?): return left.compare(right)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil):
            let common = min(lhs.count, rhs.count)
            if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
                let order = memcmp(left, right, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
        }
    }
}

/// A decimal number read from text: its sign, its significant digits (no leading or trailing zeros), and the
/// exponent of the first one (`0.d1d2... x 10^exponent`). Zero has no digits.
struct DecimalText {
    let negative: Bool
    let digits: [UInt8]
    let exponent: Int

    /// Reads `bytes` as `[+-]digits[.digits][(e|E)[+-]digits]`, with at least one digit before the exponent;
    /// nil for anything else.
    init?(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        let count = bytes.count
        func isDigit(_ at: Int) -> Bool { at < count && bytes[at] >= 48 && bytes[at] <= 57 }
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        while index < count {
            let byte = bytes[index]
            if isDigit(index) {
                sawDigit = true
                if digits.isEmpty && byte == 48 {
                    // A leading zero: after the point it moves the first digit right.
                    if sawPoint { exponent -= 1 }
                } else {
                    digits.append(byte - 48)
                    if !sawPoint { exponent += 1 }
                }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(index) else { return nil }
            var written = 0
            while isDigit(index) {
                // Past a billion the value is infinite for every purpose here; stop growing.
                written = min(written * 10 + Int(bytes[index] - 48), 1_000_000_000)
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard index == count else { return nil }
        while digits.last == 0 { digits.removeLast() }
        self.negative = negative && !digits.isEmpty
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
    }

    /// -1, 0 or 1 as this number is less than, equal to or greater than `other`.
    func compare(_ other: DecimalText) -> Int32 {
        let sign = digits.isEmpty ? 0 : (negative ? -1 : 1)
        let otherSign = other.digits.isEmpty ? 0 : (other.negative ? -1 : 1)
        if sign != otherSign { return sign < otherSign ? -1 : 1 }
        if sign == 0 { return 0 }
        let magnitude = compareMagnitude(other)
        return negative ? -magnitude : magnitude
    }

    private func compareMagnitude(_ other: DecimalText) -> Int32 {
        if exponent != other.exponent { return exponent < other.exponent ? -1 : 1 }
        for (mine, theirs) in zip(digits, other.digits) where mine != theirs {
            return mine < theirs ? -1 : 1
        }
        return digits.count == other.digits.count ? 0 : (digits.count < other.digits.count ? -1 : 1)
    }
}
