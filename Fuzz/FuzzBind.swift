// Fuzz target: random bytes become values of many types, bound to a statement and read back: each must equal.
//
// Build and run: scripts/fuzz.sh bind SECONDS

import Foundation

/// One value to bind, with how to check it after the round trip.
private struct BoundCase {
    var bind: (Statement, Int) throws -> Void
    var check: (Row, Int) throws -> Bool
    var label: String
    /// Binding must throw (NaN, an unsigned value above Int64.max).
    var mustThrow = false
}

private func exactCase<Value: DatabaseValueConvertible & Equatable>(_ value: Value) -> BoundCase {
    BoundCase(
        bind: { try $0.bind(value: value, at: $1) },
        check: { row, index in try row[index - 1] as Value == value },
        label: "\(Value.self) \(value)")
}

private func makeCase(_ input: inout FuzzInput) -> BoundCase {
    switch input.byte() % 20 {
    case 0: return exactCase(Int64?.none)
    case 1: return exactCase(input.integer(Int64.self))
    case 2: return exactCase(input.integer(Int8.self))
    case 3: return exactCase(input.integer(Int16.self))
    case 4: return exactCase(input.integer(Int32.self))
    case 5: return exactCase(input.integer(UInt8.self))
    case 6: return exactCase(input.integer(UInt16.self))
    case 7: return exactCase(input.integer(UInt32.self))
    case 8:
        let value = input.integer(UInt64.self)
        var test = exactCase(value)
        test.mustThrow = value > UInt64(Int64.max)
        return test
    case 9: return exactCase(input.integer(Int.self))
    case 10:
        let value = UInt(input.integer(UInt64.self))
        var test = exactCase(value)
        test.mustThrow = value > UInt(Int64.max)
        return test
    case 11:
        let value = Double(bitPattern: input.integer(UInt64.self))
        var test = exactCase(value)
        test.mustThrow = value.isNaN
        return test
    case 12:
        let value = Float(bitPattern: input.integer(UInt32.self))
        var test = exactCase(value)
        test.mustThrow = value.isNaN
        return test
    case 13: return exactCase(String(decoding: input.chunk(), as: UTF8.self))
    case 14: return exactCase(Data(input.chunk()))
    case 15: return exactCase(input.chunk())
    case 16: return exactCase(input.byte() & 1 == 1)
    case 17:
        // Milliseconds within years 0000...9999, through a random date strategy.
        let range: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        let milliseconds = range.lowerBound + Int64(input.integer(UInt64.self) % span)
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let strategy: DateStrategy = [.text, .integer, .unixMilliseconds, .real][Int(input.byte() % 4)]
        return BoundCase(
            bind: { statement, index in
                statement.dateStrategy = strategy
                try statement.bind(value: date, at: index)
            },
            check: { row, index in
                // A statement has one date strategy for binding and reading: the last one set wins.
                row.statement.dateStrategy = strategy
                let back: Date = try row[index - 1]
                let backMilliseconds = (back.timeIntervalSince1970 * 1000).rounded()
                switch strategy {
                case .text, .unixMilliseconds: return backMilliseconds == Double(milliseconds)
                case .integer: return back.timeIntervalSince1970 == (Double(milliseconds) / 1000).rounded(.down)
                // A Julian day is a Double of about 2.4 million days: it keeps well under a millisecond.
                case .real: return abs(backMilliseconds - Double(milliseconds)) <= 1
                }
            },
            label: "Date \(milliseconds) ms as \(strategy)")
    case 18:
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = input.byte() }
        let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        let strategy: UUIDStrategy = input.byte() & 1 == 0 ? .blob : .text
        return BoundCase(
            bind: { statement, index in
                statement.uuidStrategy = strategy
                try statement.bind(value: uuid, at: index)
            },
            check: { row, index in try row[index - 1] as UUID == uuid },
            label: "UUID \(uuid) as \(strategy)")
    default:
        let significand = UInt64(input.integer(UInt32.self))
        let exponent = Int(Int8(truncatingIfNeeded: input.byte()) % 20)
        let sign: FloatingPointSign = input.byte() & 1 == 0 ? .plus : .minus
        return exactCase(Decimal(sign: sign, exponent: exponent, significand: Decimal(significand)))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBind(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let byName = input.byte() & 1 == 1
    var cases: [BoundCase] = []
    while !input.isAtEnd && cases.count < 16 {
        cases.append(makeCase(&input))
    }
    guard !cases.isEmpty else { return 0 }
    guard let db = makeGuardedDatabase() else { fuzzFailure("an in-memory database could not open") }
    defer { db.close() }
    let columns = cases.indices.map { byName ? ":p\($0)" : "?\($0 + 1)" }
    let statement: Statement
    do {
        statement = try db.prepare(query: "SELECT " + columns.joined(separator: ", "))
    } catch {
        fuzzFailure("could not prepare the select: \(error)")
    }
    var bound: [Int] = []
    for (offset, test) in cases.enumerated() {
        do {
            if byName {
                // Bind through the name: a statement that binds by name must take the same values.
                let named = try db.prepare(query: "SELECT :p")
                try test.bind(named, 1)
            }
            try test.bind(statement, offset + 1)
            if test.mustThrow { fuzzFailure("binding \(test.label) did not throw") }
            bound.append(offset)
        } catch let error as DatabaseError {
            if !test.mustThrow { fuzzFailure("binding \(test.label) threw \(error)") }
            if error.code != .valueOutOfRange && error.code != .invalidValue {
                fuzzFailure("binding \(test.label) threw an unexpected \(error)")
            }
        } catch {
            fuzzFailure("binding \(test.label) threw a non-database error \(error)")
        }
    }
    let row: Row?
    do {
        row = try statement.next()
    } catch {
        fuzzFailure("stepping the select failed: \(error)")
    }
    guard let row else { fuzzFailure("the select returned no row") }
    for offset in bound {
        let test = cases[offset]
        do {
            guard try test.check(row, offset + 1) else {
                let stored = (try? row[offset] as DatabaseValue).map { "\($0)" } ?? "?"
                fuzzFailure("\(test.label) came back different; stored \(stored)")
            }
        } catch {
            fuzzFailure("reading back \(test.label) threw \(error)")
        }
    }
    return 0
}
