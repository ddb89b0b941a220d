import Foundation
import StrataRecord
import Testing

@testable import Strata

/// The decode matrix of `DecodeMatrixTests` (every storage class × every built-in type) through generated code:
/// `GBox<T>` and `GOptionalBox<T>` read `SELECT <stored> AS v` by their generated reader and by their `Codable`
/// conformance, and both must give the same value or the same error. The generated reader must also agree with
/// the matrix's oracle.
@Suite("Generated records: decode matrix, generated vs Codable")
struct GeneratedMatrixTests {
    @Test(
        "Every storage class read as every type gives the same value or error both ways",
        arguments: StoredCase.all, SwiftType.allCases)
    func cell(stored: StoredCase, type: SwiftType) throws {
        switch type {
        case .bool: try check(Bool.self, stored, expected: stored.asBool)
        case .int: try check(Int.self, stored, expected: stored.asInteger(Int.self))
        case .int8: try check(Int8.self, stored, expected: stored.asInteger(Int8.self))
        case .int16: try check(Int16.self, stored, expected: stored.asInteger(Int16.self))
        case .int32: try check(Int32.self, stored, expected: stored.asInteger(Int32.self))
        case .int64: try check(Int64.self, stored, expected: stored.asInteger(Int64.self))
        case .uint: try check(UInt.self, stored, expected: stored.asInteger(UInt.self))
        case .uint8: try check(UInt8.self, stored, expected: stored.asInteger(UInt8.self))
        case .uint16: try check(UInt16.self, stored, expected: stored.asInteger(UInt16.self))
        case .uint32: try check(UInt32.self, stored, expected: stored.asInteger(UInt32.self))
        case .uint64: try check(UInt64.self, stored, expected: stored.asInteger(UInt64.self))
        case .float: try check(Float.self, stored, expected: stored.asFloat)
        case .double: try check(Double.self, stored, expected: stored.asDouble)
        case .string: try check(String.self, stored, expected: stored.asString)
        case .data: try check(Data.self, stored, expected: stored.asData)
        case .bytes: try check([UInt8].self, stored, expected: stored.asBytes)
        case .date: try check(Date.self, stored, expected: stored.asDate) { abs($0.timeIntervalSince($1)) < 1e-6 }
        case .uuid: try check(UUID.self, stored, expected: stored.asUUID)
        case .url: try check(URL.self, stored, expected: stored.asURL)
        case .decimal: try check(Decimal.self, stored, expected: stored.asDecimal)
        case .databaseValue: try check(DatabaseValue.self, stored, expected: stored.asDatabaseValue)
        }
    }

    private func check<T: Codable & Equatable>(
        _ type: T.Type, _ stored: StoredCase, expected: T?, oracle: (T, T) -> Bool = { $0 == $1 }
    ) throws {
        let db = try makeDatabase()
        let sql = "SELECT \(stored.sql) AS v"
        let statement = try db.prepare(query: sql)
        let row = try #require(try statement.next())
        let label = "\(stored.name) as \(T.self)"

        // { var v: T }: the generated reader (twice, around the Codable read of the same row) and init(from:).
        let generated = outcome { try RowDecoder().decode(GBox<T>.self, from: row).v }
        let codable = outcome { try Path.codableDecoder.decode(GBox<T>.self, from: row).v }
        let again = outcome { try RowDecoder().decode(GBox<T>.self, from: row).v }
        expectSameOutcome(generated, codable, label)
        expectSameOutcome(again, codable, label + " (read again)")
        // The specialized fetch, from a statement of its own.
        let fetched = outcome { try db.fetchAll(GBox<T>.self, query: sql).map(\.v) }
        let fetchedCodable = outcome {
            try fetchAllDecodable(db, GBox<T>.self, query: sql, decoder: Path.codableDecoder).map(\.v)
        }
        expectSameOutcome(fetched, fetchedCodable, label + " (fetchAll)")
        switch (generated, expected) {
        case (.success(let value), .some(let expected)):
            let matches = oracle(value, expected)
            #expect(matches, "\(label): \(describe(value)) != \(describe(expected))")
        case (.failure(let error), .none):
            expectDescriptive(error, stored, "\(T.self)", label)
        case (.success(let value), .none):
            Issue.record("\(label): expected an error, the generated reader gave \(describe(value))")
        case (.failure(let error), .some(let expected)):
            Issue.record("\(label): expected \(expected), the generated reader threw \(ErrorShape(error))")
        }

        // { var v: T? }: NULL is nil.
        let optional = outcome { try RowDecoder().decode(GOptionalBox<T>.self, from: row).v }
        let optionalCodable = outcome { try Path.codableDecoder.decode(GOptionalBox<T>.self, from: row).v }
        expectSameOutcome(optional, optionalCodable, label + "?")
        let fetchedOptional = outcome { try db.fetchAll(GOptionalBox<T>.self, query: sql).map(\.v) }
        let fetchedOptionalCodable = outcome {
            try fetchAllDecodable(db, GOptionalBox<T>.self, query: sql, decoder: Path.codableDecoder).map(\.v)
        }
        expectSameOutcome(fetchedOptional, fetchedOptionalCodable, label + "? (fetchAll)")
        switch (optional, stored.isNull ? nil : expected) {
        case (.success(let value), _) where stored.isNull:
            let isNil = value == nil
            #expect(isNil, "\(label)?: NULL read as \(describe(value as Any))")
        case (.success(let value), .some(let expected)):
            let matches = value.map { oracle($0, expected) } == true
            #expect(matches, "\(label)?: \(describe(value as Any)) != \(describe(expected))")
        case (.failure(let error), .none) where !stored.isNull:
            expectDescriptive(error, stored, "\(T.self)", label + "?")
        case (.success(let value), _):
            Issue.record("\(label)?: expected an error, the generated reader gave \(describe(value as Any))")
        case (.failure(let error), _):
            Issue.record("\(label)?: expected a value, the generated reader threw \(ErrorShape(error))")
        }
    }

    /// The error names the column, the stored type and the expected type, at the coding path `v`.
    private func expectDescriptive(_ error: any Error, _ stored: StoredCase, _ typeName: String, _ label: String) {
        let shape = ErrorShape(error)
        #expect(shape.kind.hasPrefix("DecodingError."), "\(label): \(shape)")
        #expect(shape.codingPath == ["v"], "\(label): \(shape)")
        let text = String(describing: error)
        #expect(text.contains("\"v\""), "\(label): no column in \(text)")
        #expect(text.contains(stored.storageClass), "\(label): no stored type in \(text)")
        #expect(text.contains(typeName), "\(label): no expected type in \(text)")
    }
}
