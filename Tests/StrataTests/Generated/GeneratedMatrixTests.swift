import Foundation
import StrataRecord
import Testing

@testable import Strata

/// The decode matrix of `DecodeMatrixTests` (every storage class × every built-in type) through generated code:
/// `GBox<T>` and `GOptionalBox<T>` read `SELECT <stored> AS v` by their generated reader and by their `Codable`
/// conformance, and both must give the same value or the same error. The generated reader must also agree with
/// the matrix's oracle.
@Suite("Generated records: decode matrix, generated vs Codable")
struct GeneratedMatrixTests: DecodeMatrixCheck {
    @Test(
        "Every storage class read as every type gives the same value or error both ways",
        arguments: StoredCase.all, SwiftType.allCases)
    func cell(stored: StoredCase, type: SwiftType) throws {
        try type.check(stored, with: self)
    }

    func check<T: DatabaseValueConvertible & Codable & Equatable>(
        _ type: T.Type, _ stored: StoredCase, expected: T?, typeName: String, same oracle: (T, T) -> Bool
    ) throws {
        let db = try makeDatabase()
        let sql = "SELECT \(stored.sql) AS v"
        let statement = try db.prepare(query: sql)
        let row = try #require(try statement.next())
        let label = "\(stored.name) as \(typeName)"

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
