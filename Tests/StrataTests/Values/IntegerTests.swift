import Foundation
import Strata
import Testing

/// Every integer width, for grids.
enum IntegerWidth: String, CaseIterable, Sendable {
    case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64

    /// Runs `body` with the Swift type of this width.
    @discardableResult
    func with<Result>(_ body: (any (FixedWidthInteger & DatabaseValueConvertible).Type) throws -> Result) rethrows
        -> Result
    {
        switch self {
        case .int: try body(Int.self)
        case .int8: try body(Int8.self)
        case .int16: try body(Int16.self)
        case .int32: try body(Int32.self)
        case .int64: try body(Int64.self)
        case .uint: try body(UInt.self)
        case .uint8: try body(UInt8.self)
        case .uint16: try body(UInt16.self)
        case .uint32: try body(UInt32.self)
        case .uint64: try body(UInt64.self)
        }
    }
}

@Suite struct IntegerTests {
    /// The bounds of `T` that SQLite can store: `T.min` and `T.max` clamped to Int64.
    private func storableBounds<T: FixedWidthInteger>(_ type: T.Type) -> [T] {
        let max = T(exactly: Int64.max).map { Swift.min($0, T.max) } ?? T.max
        return [T.min, T.min + 1, 0, 1, max - 1, max]
    }

    private func checkRoundTrip<T: FixedWidthInteger & DatabaseValueConvertible>(_ type: T.Type) throws {
        let db = try makeDatabase()
        for value in storableBounds(T.self) {
            let stored = try stored(value, in: db)
            #expect(stored.type == "integer")
            #expect(stored.value == .integer(Int64(value)))
            #expect(try roundTrip(value, in: db) == value)
            #expect(try roundTrip(value as T?, in: db) == value)
        }
    }

    @Test(arguments: IntegerWidth.allCases)
    func everyWidthRoundTripsItsBounds(width: IntegerWidth) throws {
        try width.with { try checkRoundTrip($0) }
    }

    private func checkOutOfRange<T: FixedWidthInteger & DatabaseValueConvertible>(_ type: T.Type) throws {
        let db = try makeDatabase()
        var outside: [Int64] = []
        if let below = Int64(exactly: T.min).flatMap({ $0 == .min ? nil : $0 - 1 }) { outside.append(below) }
        if let above = Int64(exactly: T.max).flatMap({ $0 == .max ? nil : $0 + 1 }) { outside.append(above) }
        for value in outside {
            let error = expectError(.valueOutOfRange) { _ = try read(T.self, from: .integer(value), in: db) }
            #expect(error.text.contains("could not decode \(T.self) from INTEGER"))
            expectError(.valueOutOfRange) { _ = try read(T?.self, from: .integer(value), in: db) }
        }
    }

    @Test(arguments: IntegerWidth.allCases)
    func aValueOutsideTheWidthThrowsInsteadOfTruncating(width: IntegerWidth) throws {
        try width.with { try checkOutOfRange($0) }
    }

    @Test func int8From300Throws() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT 300 AS v").next())
        let error = expectError(.valueOutOfRange) { let _: Int8 = try row.v }
        #expect(error?.column == "v")
        #expect(error.text.contains("Int8"))
        #expect(error.text.contains("INTEGER"))
        #expect(try row.v as Int16 == 300)
    }

    @Test func unsignedFromNegativeThrows() throws {
        let db = try makeDatabase()
        for width in [IntegerWidth.uint, .uint8, .uint16, .uint32, .uint64] {
            width.with { type in
                expectError(.valueOutOfRange) { _ = try read(type, from: .integer(-1), in: db) }
            }
        }
    }

    @Test func uint64AtInt64MaxBinds() throws {
        let db = try makeDatabase()
        #expect(try stored(UInt64(Int64.max), in: db).value == .integer(.max))
        #expect(try roundTrip(UInt(Int64.max), in: db) == UInt(Int64.max))
    }

    // MARK: REAL and other storage classes

    @Test(arguments: [0.0, 3.0, -42.0, 1e15, -0.0])
    func anIntegralRealReadsAsInt(real: Double) throws {
        let db = try makeDatabase()
        #expect(try read(Int.self, from: .real(real), in: db) == Int(real))
        #expect(try read(Int64.self, from: .real(real), in: db) == Int64(real))
    }

    @Test(arguments: [0.5, -2.25, 3.0000001, -1e-300])
    func aRealWithAFractionThrowsAsInt(real: Double) throws {
        let db = try makeDatabase()
        let error = expectError(.typeMismatch) { _ = try read(Int.self, from: .real(real), in: db) }
        #expect(error.text.contains("could not decode Int from REAL"))
    }

    @Test(arguments: [1e19, -1e19, Double.infinity, -Double.infinity, 9_223_372_036_854_775_808.0])
    func aRealOutsideInt64Throws(real: Double) throws {
        let db = try makeDatabase()
        expectError(.valueOutOfRange) { _ = try read(Int64.self, from: .real(real), in: db) }
    }

    @Test func anIntegralRealOutsideTheWidthThrows() throws {
        let db = try makeDatabase()
        expectError(.valueOutOfRange) { _ = try read(Int8.self, from: .real(300), in: db) }
        expectError(.valueOutOfRange) { _ = try read(UInt8.self, from: .real(-1), in: db) }
    }

    @Test(arguments: [DatabaseValue.text("42"), .text(""), .blob(Data([42]))])
    func textAndBlobThrowAsInt(value: DatabaseValue) throws {
        let db = try makeDatabase()
        for width in IntegerWidth.allCases {
            width.with { type in
                let error = expectError(.typeMismatch) { _ = try read(type, from: value, in: db) }
                #expect(error.text.contains(value.storageClassName))
            }
        }
    }

    @Test func nullThrowsAsIntAndIsNilAsOptional() throws {
        let db = try makeDatabase()
        for width in IntegerWidth.allCases {
            width.with { type in
                expectError(.unexpectedNull) { _ = try read(type, from: .null, in: db) }
            }
        }
        #expect(try read(Int?.self, from: .null, in: db) == nil)
        #expect(try read(UInt8?.self, from: .null, in: db) == nil)
    }

    // MARK: Bool

    @Test func boolStoresZeroAndOne() throws {
        let db = try makeDatabase()
        #expect(try stored(true, in: db).value == .integer(1))
        #expect(try stored(false, in: db).value == .integer(0))
        #expect(try roundTrip(true, in: db))
        #expect(try !roundTrip(false, in: db))
        #expect(try read(Bool.self, from: .integer(2), in: db))
        #expect(try read(Bool.self, from: .integer(-1), in: db))
        #expect(try read(Bool?.self, from: .null, in: db) == nil)
    }

    @Test(arguments: [DatabaseValue.text("true"), .real(0.5), .blob(Data([1]))])
    func boolFromOtherStorageClassesThrows(value: DatabaseValue) throws {
        let db = try makeDatabase()
        expectError(.typeMismatch) { _ = try read(Bool.self, from: value, in: db) }
    }

    // MARK: Floating point

    @Test(arguments: [0.0, -0.5, 1.5, .pi, 1e300, -1e-300, .greatestFiniteMagnitude, .infinity, -.infinity])
    func doubleRoundTrips(value: Double) throws {
        let db = try makeDatabase()
        #expect(try stored(value, in: db).type == "real")
        #expect(try roundTrip(value, in: db) == value)
    }

    @Test func doubleReadsAnExactInteger() throws {
        let db = try makeDatabase()
        #expect(try read(Double.self, from: .integer(42), in: db) == 42)
        #expect(try read(Double.self, from: .integer(1 << 53), in: db) == 9_007_199_254_740_992)
        let error = expectError(.valueOutOfRange) {
            _ = try read(Double.self, from: .integer((1 << 53) + 1), in: db)
        }
        #expect(error.text.contains("Double"))
        expectError(.typeMismatch) { _ = try read(Double.self, from: .text("1.5"), in: db) }
    }

    @Test(arguments: [Float(0), 1.5, -3.25, .pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity])
    func floatRoundTrips(value: Float) throws {
        let db = try makeDatabase()
        #expect(try stored(value, in: db).type == "real")
        #expect(try roundTrip(value, in: db) == value)
    }

    @Test func floatOutOfRangeThrows() throws {
        let db = try makeDatabase()
        let error = expectError(.valueOutOfRange) { _ = try read(Float.self, from: .real(1e300), in: db) }
        #expect(error.text.contains("Float"))
        #expect(try read(Float.self, from: .real(.infinity), in: db) == .infinity)
        #expect(try read(Float.self, from: .integer(3), in: db) == 3)
    }
}
