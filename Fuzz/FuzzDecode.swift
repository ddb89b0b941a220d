// Fuzz target: random rows (every storage class, extremes, invalid UTF-8 text) decoded into several
// Codable types with RowDecoder and read through Row subscripts as every built-in type. Any outcome
// but a thrown error or the exact value is a defect.
//
// Build and run: scripts/fuzz.sh decode SECONDS

import Foundation

private enum Color: String, Codable, DatabaseValueConvertible { case red, green }

private struct Nested: Codable { var x: Int; var tags: [String] }

private struct Scalars: Codable {
    var a: Int8
    var b: UInt64
    var c: Double
    var d: String
    var e: Data
}

private struct Optionals: Codable {
    var a: Int?
    var b: Float?
    var c: Bool?
    var d: Date?
    var e: UUID?
    var f: URL?
}

private struct Mixed: Codable {
    var a: Decimal
    var b: [Int]?
    var c: Nested?
    var d: Color
    var e: [UInt8]
    var f: DatabaseValue
}

private struct Columns: Codable { var a, b, c, d, e, f: DatabaseValue }

/// A stored value and the SQL expression that yields it from its bound parameter.
private func makeColumn(_ input: inout FuzzInput, index: Int) -> (value: DatabaseValue, expression: String) {
    let parameter = "?\(index + 1)"
    switch input.byte() % 9 {
    case 0: return (.null, parameter)
    case 1: return (.integer(input.integer(Int64.self)), parameter)
    case 2: return (.integer(Int64(Int8(truncatingIfNeeded: input.byte()))), parameter)
    case 3:
        let real = Double(bitPattern: input.integer(UInt64.self))
        return (real.isNaN ? .null : .real(real), parameter)
    case 4: return (.text(String(decoding: input.chunk(), as: UTF8.self)), parameter)
    case 5: return (.blob(Data(input.chunk())), parameter)
    // Bytes as TEXT, often not UTF-8: SQLite does not check.
    case 6: return (.blob(Data(input.chunk())), "CAST(\(parameter) AS TEXT)")
    case 7:
        let samples = [
            "2024-02-29 12:34:56.789", "1970-01-01T00:00:00Z", "[1,2,3]", "{\"x\":1,\"tags\":[\"a\"]}",
            "red", "https://example.com/a?b=c", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "1e400", "-0", "12.50",
        ]
        return (.text(samples[Int(input.byte()) % samples.count]), parameter)
    default: return (.real(Double(Int32(truncatingIfNeeded: input.integer(UInt32.self)))), parameter)
    }
}

/// Reads column `index` as `T`; a success must agree with the stored value where the answer is known.
private func readAll(_ row: Row, _ index: Int, stored: DatabaseValue) {
    func expectIntegral<T: FixedWidthInteger & DatabaseValueConvertible>(_ type: T.Type) {
        guard let value = try? row[index] as T else { return }
        switch stored {
        case .integer(let integer):
            if Int64(exactly: value) != integer { fuzzFailure("\(T.self) \(value) read from INTEGER \(integer)") }
        case .real(let real):
            if Double(exactly: value) != real { fuzzFailure("\(T.self) \(value) read from REAL \(real)") }
        default:
            fuzzFailure("\(T.self) \(value) read from \(stored.storageClassName)")
        }
    }
    expectIntegral(Int.self)
    expectIntegral(Int8.self)
    expectIntegral(Int16.self)
    expectIntegral(Int32.self)
    expectIntegral(Int64.self)
    expectIntegral(UInt.self)
    expectIntegral(UInt8.self)
    expectIntegral(UInt16.self)
    expectIntegral(UInt32.self)
    expectIntegral(UInt64.self)
    if let value = try? row[index] as String, case .text(let text) = stored, value != text {
        fuzzFailure("String \(value.debugDescription) read from TEXT \(text.debugDescription)")
    }
    if let value = try? row[index] as Double, case .real(let real) = stored, value != real {
        fuzzFailure("Double \(value) read from REAL \(real)")
    }
    if let value = try? row[index] as Data, case .blob(let blob) = stored, value != blob {
        fuzzFailure("Data of \(value.count) bytes read from a BLOB of \(blob.count)")
    }
    do {
        let value: Bool? = try row[index]
        if value == nil && !stored.isNull { fuzzFailure("Bool? nil read from \(stored.storageClassName)") }
    } catch {}
    _ = try? row[index] as Float
    _ = try? row[index] as Date
    _ = try? row[index] as UUID
    _ = try? row[index] as URL
    _ = try? row[index] as Decimal
    _ = try? row[index] as [UInt8]
    _ = try? row[index] as [String]
    _ = try? row[index] as Color
    _ = try? row[index] as DatabaseValue
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let names = ["a", "b", "c", "d", "e", "f"]
    var columns: [(value: DatabaseValue, expression: String)] = []
    for index in names.indices {
        columns.append(makeColumn(&input, index: index))
    }
    guard let db = makeGuardedDatabase() else { fuzzFailure("an in-memory database could not open") }
    defer { db.close() }
    let sql = "SELECT " + zip(columns, names).map { "\($0.expression) AS \($1)" }.joined(separator: ", ")
    do {
        let statement = try db.prepare(query: sql)
        for (offset, column) in columns.enumerated() {
            try statement.bind(value: column.value, at: offset + 1)
        }
        guard let row = try statement.next() else { fuzzFailure("the select returned no row") }
        for (offset, column) in columns.enumerated() where !column.expression.hasPrefix("CAST") {
            let stored: DatabaseValue = try row[offset]
            // -0.0 and 0.0 are equal; anything else must come back as bound.
            if stored != column.value { fuzzFailure("bound \(column.value), stored \(stored)") }
        }
        for (offset, column) in columns.enumerated() {
            readAll(row, offset, stored: column.expression.hasPrefix("CAST") ? .null : column.value)
        }
        let decoder = RowDecoder()
        _ = try? decoder.decode(Scalars.self, from: row)
        _ = try? decoder.decode(Optionals.self, from: row)
        _ = try? decoder.decode(Mixed.self, from: row)
        _ = try? decoder.decode([String: DatabaseValue].self, from: row)
        _ = try? decoder.decode([String: String].self, from: row)
        if let all = try? decoder.decode(Columns.self, from: row) {
            let decoded = [all.a, all.b, all.c, all.d, all.e, all.f]
            for (offset, column) in columns.enumerated() where !column.expression.hasPrefix("CAST") {
                if decoded[offset] != column.value {
                    fuzzFailure("RowDecoder read \(decoded[offset]) for bound \(column.value)")
                }
            }
        }
    } catch {
        fuzzFailure("binding or stepping failed: \(error) - \(sql)")
    }
    return 0
}
