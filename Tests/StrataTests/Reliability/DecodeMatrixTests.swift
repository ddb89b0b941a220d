import Foundation
import Strata
import Testing

/// Every SQLite storage class read as every built-in Swift type, through `Row` subscripts and through `RowDecoder`.
///
/// Each cell of the grid (stored value × requested type) runs four reads — `row["v"] as T`, `as T?`,
/// `RowDecoder` into `{ let v: T }` and into `{ let v: T? }` — and checks them against an oracle
/// written from the documented rules (DESIGN.md, "Values"): a success must give exactly the
/// expected value, a failure must be a thrown error naming the column, the stored type and the
/// requested type. Nothing may trap.
@Suite("Reliability: decode matrix")
struct DecodeMatrixTests: DecodeMatrixCheck {
    @Test(
        "Every storage class read as every type gives the exact value or a descriptive error",
        arguments: StoredCase.all, SwiftType.allCases)
    func cell(stored: StoredCase, type: SwiftType) throws {
        try type.check(stored, with: self)
    }

    @Test("Binding NaN throws instead of storing NULL")
    func bindingNaNThrows() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ? AS v")
        for value in [Double.nan, -Double.nan, Double.signalingNaN] {
            let error = expectError(.invalidValue) { try statement.bind(value: value, at: 1) }
            #expect(error.text.contains("NaN"))
        }
        expectError(.invalidValue) { try statement.bind(value: Float.nan, at: 1) }
        expectError(.invalidValue) { try statement.bind(value: Optional(Double.nan), at: 1) }
        struct Box: Encodable { var v: Double }
        #expect(throws: EncodingError.self) { try StatementEncoder().encode(Box(v: .nan), to: statement) }
    }

    @Test("SQLite turns a NaN it computes into NULL, which reads as nil or an unexpected-NULL error")
    func computedNaNIsNull() throws {
        let db = try makeDatabase()
        // inf - inf is NaN inside SQLite; it stores NULL.
        let row = try #require(try db.prepare(query: "SELECT 9e999 - 9e999 AS v").next())
        let value: DatabaseValue = try row.v
        #expect(value == .null)
        let optional: Double? = try row.v
        #expect(optional == nil)
        let error = expectError(.unexpectedNull) { let _: Double = try row.v }
        #expect(error?.column == "v")
    }

    @Test("Storage classes come back as stored through DatabaseValue", arguments: StoredCase.all)
    func storageClass(stored: StoredCase) throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT typeof(\(stored.sql)) AS t").next())
        let type: String = try row.t
        #expect(type == stored.storageClass.lowercased())
    }

    // MARK: The four reads of one cell

    func check<T: DatabaseValueConvertible & Codable & Equatable>(
        _ type: T.Type, _ stored: StoredCase, expected: T?, typeName: String, same: (T, T) -> Bool
    ) throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT \(stored.sql) AS v")
        let row = try #require(try statement.next())
        let label = "\(stored.name) as \(typeName)"

        // 1. row["v"] as T
        if let expected {
            let value: T = try row["v"]
            #expect(same(value, expected), "\(label): \(value) != \(expected)")
        } else {
            expectDescriptiveError(stored, typeName, label) { let _: T = try row["v"] }
        }

        // 2. row.v as T?: NULL is nil, anything else as T.
        if stored.isNull {
            let value: T? = try row.v
            #expect(value == nil, "\(label)?")
        } else if let expected {
            let value: T? = try row.v
            #expect(value.map { same($0, expected) } == true, "\(label)?: \(String(describing: value))")
        } else {
            expectDescriptiveError(stored, typeName, label + "?") { let _: T? = try row.v }
        }

        // 3. RowDecoder into { let v: T }
        let decoder = RowDecoder()
        if let expected {
            let box = try decoder.decode(Box<T>.self, from: row)
            #expect(same(box.v, expected), "decoded \(label): \(box.v) != \(expected)")
        } else {
            expectDescriptiveDecodingError(stored, typeName, label) { _ = try decoder.decode(Box<T>.self, from: row) }
        }

        // 4. RowDecoder into { let v: T? }
        if stored.isNull {
            #expect(try decoder.decode(OptionalBox<T>.self, from: row).v == nil, "decoded \(label)?")
        } else if let expected {
            let box = try decoder.decode(OptionalBox<T>.self, from: row)
            #expect(box.v.map { same($0, expected) } == true, "decoded \(label)?: \(String(describing: box.v))")
        } else {
            expectDescriptiveDecodingError(stored, typeName, label + "?") {
                _ = try decoder.decode(OptionalBox<T>.self, from: row)
            }
        }
    }

    private func expectDescriptiveError(
        _ stored: StoredCase, _ typeName: String, _ label: String, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("\(label): expected an error, got a value")
        } catch let error as DatabaseError {
            let text = String(describing: error)
            #expect(error.column == "v", "\(label): \(text)")
            #expect(text.contains(stored.storageClass), "\(label): no stored type in \(text)")
            #expect(text.contains(typeName), "\(label): no requested type in \(text)")
        } catch {
            Issue.record("\(label): \(error) is not a DatabaseError")
        }
    }

    private func expectDescriptiveDecodingError(
        _ stored: StoredCase, _ typeName: String, _ label: String, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("decoded \(label): expected an error, got a value")
        } catch let error as DecodingError {
            let text = String(describing: error)
            #expect(text.contains("\"v\""), "decoded \(label): no column in \(text)")
            #expect(text.contains(stored.storageClass), "decoded \(label): no stored type in \(text)")
            #expect(text.contains(typeName), "decoded \(label): no requested type in \(text)")
        } catch {
            Issue.record("decoded \(label): \(error) is not a DecodingError")
        }
    }
}

private struct Box<T: Codable>: Codable { let v: T }
private struct OptionalBox<T: Codable>: Codable { let v: T? }

/// The requested Swift types of the grid.
enum SwiftType: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64
    case float, double, string, data, bytes, date, uuid, url, decimal, databaseValue
    var testDescription: String { rawValue }

    /// Runs `checker` for this type on `stored`, with the value the oracle expects (nil: an error), the name errors
    /// give the type, and how two values compare.
    func check(_ stored: StoredCase, with checker: some DecodeMatrixCheck) throws {
        func run<T: DatabaseValueConvertible & Codable & Equatable>(
            _ type: T.Type, _ expected: T?, typeName: String = "\(T.self)", same: (T, T) -> Bool = { $0 == $1 }
        ) throws {
            try checker.check(T.self, stored, expected: expected, typeName: typeName, same: same)
        }
        switch self {
        case .bool: try run(Bool.self, stored.asBool)
        case .int: try run(Int.self, stored.asInteger(Int.self))
        case .int8: try run(Int8.self, stored.asInteger(Int8.self))
        case .int16: try run(Int16.self, stored.asInteger(Int16.self))
        case .int32: try run(Int32.self, stored.asInteger(Int32.self))
        case .int64: try run(Int64.self, stored.asInteger(Int64.self))
        case .uint: try run(UInt.self, stored.asInteger(UInt.self))
        case .uint8: try run(UInt8.self, stored.asInteger(UInt8.self))
        case .uint16: try run(UInt16.self, stored.asInteger(UInt16.self))
        case .uint32: try run(UInt32.self, stored.asInteger(UInt32.self))
        case .uint64: try run(UInt64.self, stored.asInteger(UInt64.self))
        case .float: try run(Float.self, stored.asFloat)
        case .double: try run(Double.self, stored.asDouble)
        case .string: try run(String.self, stored.asString)
        case .data: try run(Data.self, stored.asData)
        case .bytes: try run([UInt8].self, stored.asBytes, typeName: "Array<UInt8>")
        case .date: try run(Date.self, stored.asDate) { abs($0.timeIntervalSince($1)) < 1e-6 }
        case .uuid: try run(UUID.self, stored.asUUID)
        case .url: try run(URL.self, stored.asURL)
        case .decimal: try run(Decimal.self, stored.asDecimal)
        case .databaseValue: try run(DatabaseValue.self, stored.asDatabaseValue)
        }
    }
}

/// The reads of one cell of the matrix, for one Swift type: `SwiftType.check(_:with:)` calls it with the oracle's
/// expectation.
protocol DecodeMatrixCheck {
    func check<T: DatabaseValueConvertible & Codable & Equatable>(
        _ type: T.Type, _ stored: StoredCase, expected: T?, typeName: String, same: (T, T) -> Bool) throws
}

/// A value as SQLite stores it, with the SQL expression that produces it.
struct StoredCase: Sendable, CustomTestStringConvertible {
    enum Stored: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        /// TEXT whose bytes are not UTF-8 (SQLite does not check what CAST(blob AS TEXT) holds).
        case invalidText([UInt8])
        case blob([UInt8])
    }

    let name: String
    let sql: String
    let stored: Stored

    var testDescription: String { name }

    var isNull: Bool {
        if case .null = stored { return true }
        return false
    }

    var storageClass: String {
        switch stored {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text, .invalidText: "TEXT"
        case .blob: "BLOB"
        }
    }

    static let megabyte = 1 << 20
    static let uuidBytes: [UInt8] = [
        0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
    ]

    static let all: [StoredCase] = [
        StoredCase(name: "NULL", sql: "NULL", stored: .null),
        StoredCase(name: "INTEGER 0", sql: "0", stored: .integer(0)),
        StoredCase(name: "INTEGER 1", sql: "1", stored: .integer(1)),
        StoredCase(name: "INTEGER -1", sql: "-1", stored: .integer(-1)),
        StoredCase(name: "INTEGER 127", sql: "127", stored: .integer(127)),
        StoredCase(name: "INTEGER 128", sql: "128", stored: .integer(128)),
        StoredCase(name: "INTEGER -129", sql: "-129", stored: .integer(-129)),
        StoredCase(name: "INTEGER 255", sql: "255", stored: .integer(255)),
        StoredCase(name: "INTEGER 256", sql: "256", stored: .integer(256)),
        StoredCase(name: "INTEGER 65535", sql: "65535", stored: .integer(65535)),
        StoredCase(name: "INTEGER -32769", sql: "-32769", stored: .integer(-32769)),
        StoredCase(name: "INTEGER 4294967295", sql: "4294967295", stored: .integer(4_294_967_295)),
        StoredCase(name: "INTEGER -2147483649", sql: "-2147483649", stored: .integer(-2_147_483_649)),
        StoredCase(name: "INTEGER 2^53+1", sql: "9007199254740993", stored: .integer(9_007_199_254_740_993)),
        StoredCase(name: "INTEGER Int64.max", sql: "9223372036854775807", stored: .integer(.max)),
        StoredCase(name: "INTEGER Int64.min", sql: "-9223372036854775808", stored: .integer(.min)),
        StoredCase(name: "REAL 0.0", sql: "0.0", stored: .real(0)),
        StoredCase(name: "REAL -0.0", sql: "-0.0", stored: .real(-0.0)),
        StoredCase(name: "REAL 3.0", sql: "3.0", stored: .real(3)),
        StoredCase(name: "REAL 1.5", sql: "1.5", stored: .real(1.5)),
        StoredCase(name: "REAL -2.5", sql: "-2.5", stored: .real(-2.5)),
        StoredCase(name: "REAL 2^63", sql: "9223372036854775808.0", stored: .real(9_223_372_036_854_775_808)),
        StoredCase(name: "REAL 1e19", sql: "1e19", stored: .real(1e19)),
        StoredCase(name: "REAL 1e20", sql: "1e20", stored: .real(1e20)),
        StoredCase(name: "REAL 1e308", sql: "1e308", stored: .real(1e308)),
        StoredCase(name: "REAL least nonzero", sql: "4.9406564584124654e-324", stored: .real(.leastNonzeroMagnitude)),
        StoredCase(name: "REAL +inf", sql: "9e999", stored: .real(.infinity)),
        StoredCase(name: "REAL -inf", sql: "-9e999", stored: .real(-.infinity)),
        StoredCase(name: "REAL 2451545.0 (Julian day)", sql: "2451545.0", stored: .real(2_451_545)),
        StoredCase(name: "TEXT empty", sql: "''", stored: .text("")),
        StoredCase(name: "TEXT hello", sql: "'hello'", stored: .text("hello")),
        StoredCase(name: "TEXT 42", sql: "'42'", stored: .text("42")),
        StoredCase(name: "TEXT 1.5", sql: "'1.5'", stored: .text("1.5")),
        StoredCase(name: "TEXT ' 42 '", sql: "' 42 '", stored: .text(" 42 ")),
        StoredCase(name: "TEXT true", sql: "'true'", stored: .text("true")),
        StoredCase(name: "TEXT with NUL", sql: "'a' || char(0) || 'b'", stored: .text("a\u{0}b")),
        StoredCase(name: "TEXT emoji and U+FFFD", sql: "'😀\u{FFFD}é'", stored: .text("😀\u{FFFD}é")),
        StoredCase(name: "TEXT injection", sql: "''' OR 1=1 --'", stored: .text("' OR 1=1 --")),
        StoredCase(name: "TEXT date", sql: "'2024-02-29 12:34:56.789'", stored: .text("2024-02-29 12:34:56.789")),
        StoredCase(
            name: "TEXT ISO date", sql: "'1970-01-02T00:00:00+01:00'", stored: .text("1970-01-02T00:00:00+01:00")),
        StoredCase(
            name: "TEXT UUID", sql: "'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'",
            stored: .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
        StoredCase(
            name: "TEXT URL", sql: "'https://example.com/a?b=c#d'", stored: .text("https://example.com/a?b=c#d")),
        StoredCase(
            name: "TEXT 1 MB", sql: "replace(hex(zeroblob(\(megabyte / 2))), '0', 'x')",
            stored: .text(String(repeating: "x", count: megabyte))),
        StoredCase(name: "TEXT invalid UTF-8 ff", sql: "CAST(x'ff' AS TEXT)", stored: .invalidText([0xFF])),
        StoredCase(
            name: "TEXT invalid UTF-8 c328", sql: "CAST(x'61c328' AS TEXT)", stored: .invalidText([0x61, 0xC3, 0x28])),
        StoredCase(name: "BLOB empty", sql: "x''", stored: .blob([])),
        StoredCase(name: "BLOB 00ff", sql: "x'00ff'", stored: .blob([0x00, 0xFF])),
        StoredCase(name: "BLOB 16 bytes", sql: "x'E621E1F8C36C495A93FC0C247A3E6E5F'", stored: .blob(uuidBytes)),
        StoredCase(
            name: "BLOB 1 MB", sql: "zeroblob(\(megabyte))", stored: .blob([UInt8](repeating: 0, count: megabyte))),
    ]

    // MARK: The oracle: DESIGN.md's rules, written out independently of the library

    var asBool: Bool? {
        switch stored {
        case .integer(let value): return value != 0
        case .real(let value): return value.rounded(.towardZero) == value ? value != 0 : nil
        default: return nil
        }
    }

    func asInteger<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        switch stored {
        case .integer(let value): return T(exactly: value)
        case .real(let value): return value.rounded(.towardZero) == value ? T(exactly: value) : nil
        default: return nil
        }
    }

    var asDouble: Double? {
        switch stored {
        case .real(let value): return value
        case .integer(let value): return Double(exactly: value)
        default: return nil
        }
    }

    var asFloat: Float? {
        guard let double = asDouble else { return nil }
        let float = Float(double)
        return float.isInfinite && double.isFinite ? nil : float
    }

    var asString: String? {
        if case .text(let text) = stored { return text }
        return nil
    }

    var asData: Data? {
        switch stored {
        case .blob(let bytes), .invalidText(let bytes): return Data(bytes)
        case .text(let text): return Data(text.utf8)
        default: return nil
        }
    }

    var asBytes: [UInt8]? {
        if case .blob(let bytes) = stored { return bytes }
        return nil
    }

    var asDate: Date? {
        switch stored {
        case .integer(let seconds): return Date(timeIntervalSince1970: Double(seconds))
        case .real(let julianDay):
            // A Julian day whose seconds overflow (1e308) is no Date.
            let seconds = (julianDay - 2_440_587.5) * 86_400
            return seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
        // Text that spells a number reads as that number, as a TEXT column stores a date written as a number.
        case .text("42"): return Date(timeIntervalSince1970: 42)
        case .text("1.5"): return Date(timeIntervalSince1970: (1.5 - 2_440_587.5) * 86_400)
        case .text("2024-02-29 12:34:56.789"): return Date(timeIntervalSince1970: 1_709_210_096.789)
        case .text("1970-01-02T00:00:00+01:00"): return Date(timeIntervalSince1970: 82_800)
        default: return nil
        }
    }

    var asUUID: UUID? {
        switch stored {
        case .blob(let bytes) where bytes.count == 16:
            return UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        case .text(let text): return UUID(uuidString: text)
        default: return nil
        }
    }

    var asURL: URL? {
        // Any TEXT that Foundation takes as a URL string; the library must not be stricter or looser.
        if case .text(let text) = stored { return URL(string: text) }
        return nil
    }

    var asDecimal: Decimal? {
        switch stored {
        case .integer(let value): return Decimal(value)
        // The shortest decimal that reads back as the same Double, not Decimal(Double)'s longer spelling.
        case .real(let value): return value.isFinite ? Decimal(string: value.description) : nil
        case .text("42"): return Decimal(42)
        case .text("1.5"): return Decimal(sign: .plus, exponent: -1, significand: 15)
        default: return nil
        }
    }

    var asDatabaseValue: DatabaseValue? {
        switch stored {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let text): return .text(text)
        case .invalidText: return nil
        case .blob(let bytes): return .blob(Data(bytes))
        }
    }
}
