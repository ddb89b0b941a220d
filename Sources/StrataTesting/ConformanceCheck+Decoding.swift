import Foundation
import StrataCore
import Testing

/// The decoding check: StrataCore's one row decoder gives the same values and the same errors on every backend,
/// whatever each backend's column reads are.
enum DecodingChecks {
    enum Color: String, Codable, Equatable {
        case red, green
    }

    struct Values: Decodable, Equatable {
        var number: Int
        var small: Int8
        var ratio: Double
        var flag: Bool
        var name: String
        var color: Color
        var tags: [String]
        var present: String?
        var null: Int?
        /// No column has this name: an optional reads nil, as a missing key in `JSONDecoder`.
        var absent: Int?
    }

    /// A type that lists the keys its row has: a snake_case column is listed as its camelCase key.
    struct ListedKeys: Decodable {
        enum CodingKeys: String, CodingKey {
            case createdAt, name
        }

        var keys: Set<String>

        init(from decoder: any Decoder) throws {
            keys = Set(try decoder.container(keyedBy: CodingKeys.self).allKeys.map(\.stringValue))
        }
    }

    /// A type that asks whether a column is NULL.
    struct NullCheck: Decodable {
        enum CodingKeys: String, CodingKey {
            case value
        }

        var isNull: Bool

        init(from decoder: any Decoder) throws {
            isNull = try decoder.container(keyedBy: CodingKeys.self).decodeNil(forKey: .value)
        }
    }

    struct Number: Decodable {
        var number: Int
    }

    struct Small: Decodable {
        var number: Int8
    }

    /// A storable type that is not `Decodable`: whole cents, never negative.
    struct Cents: DatabaseValueConvertible, Equatable, Sendable {
        struct Negative: Error {}
        var value: Int64
        var databaseValue: DatabaseValue { .integer(value) }
        init(_ value: Int64) { self.value = value }
        init(databaseValue: DatabaseValue) throws {
            guard case .integer(let value) = databaseValue else {
                throw DatabaseError(code: .invalidValue, message: "cents are an integer")
            }
            guard value >= 0 else { throw Negative() }
            self.value = value
        }
    }

    static let valuesQuery: SQL = """
        SELECT 42 AS number, 7 AS small, 0.5 AS ratio, \(true) AS flag, 'Ada' AS name, 'green' AS color,
            '["a","b"]' AS tags, 'here' AS present, NULL AS "null"
        """

    static func run(_ pool: some DatabaseWriter) async throws {
        let values = try await pool.read { session in try await session.fetchOne(Values.self, valuesQuery) }
        #expect(
            values
                == Values(
                    number: 42, small: 7, ratio: 0.5, flag: true, name: "Ada", color: .green, tags: ["a", "b"],
                    present: "here", null: nil, absent: nil))

        let listed = try await pool.read { session in
            try await session.fetchOne(ListedKeys.self, "SELECT 1 AS created_at, 'x' AS name, 2 AS other")
        }
        #expect(listed?.keys == ["createdAt", "name"])

        let single = try await pool.read { session in try await session.fetchAll(Color.self, "SELECT 'red'") }
        #expect(single == [.red])

        // NULL into a non-optional, a value out of the type's range, a missing column: each a DecodingError that
        // names the column.
        let null = await decodingError(in: pool, Number.self, "SELECT NULL AS number")
        #expect(null.map(isValueNotFound) == true)
        #expect(null.flatMap(underlying)?.column == "number")
        let outOfRange = await decodingError(in: pool, Small.self, "SELECT 300 AS number")
        #expect(outOfRange.flatMap(underlying)?.column == "number")
        #expect(outOfRange.flatMap(underlying)?.message.contains("Int8") == true)
        let missing = await decodingError(in: pool, Number.self, "SELECT 1 AS other")
        #expect(missing.map(isKeyNotFound) == true)
        // `decodeNil(forKey:)`: true for NULL, false for a value, `keyNotFound` for a missing column (as `JSONDecoder`).
        let nulls = try await pool.read { session in
            try await session.fetchAll(NullCheck.self, "SELECT NULL AS value UNION ALL SELECT 'x' AS value")
        }
        #expect(Set(nulls.map(\.isNull)) == [true, false])
        let noColumn = await decodingError(in: pool, NullCheck.self, "SELECT 1 AS other")
        #expect(noColumn.map(isKeyNotFound) == true)
        let notANumber = await decodingError(in: pool, Number.self, "SELECT 'seven' AS number")
        #expect(notANumber.flatMap(underlying)?.column == "number")

        try await storableTypes(pool)
    }

    /// A storable type that is not `Decodable` reads from a one-column row on every backend, and a value it refuses
    /// is an `invalidValue` with its error underneath.
    static func storableTypes(_ pool: some DatabaseWriter) async throws {
        let (all, one, null, none) = try await pool.read { session in
            (
                try await session.fetchAll(Cents.self, "SELECT 250 UNION ALL SELECT 7 ORDER BY 1"),
                try await session.fetchOne(Cents.self, "SELECT \(Int64(99))"),
                try await session.fetchOne(Cents.self, "SELECT NULL"),
                try await session.fetchOne(Cents.self, "SELECT 1 WHERE 1 = 0")
            )
        }
        #expect(all == [Cents(7), Cents(250)])
        #expect(one == Cents(99))
        #expect(null == nil)
        #expect(none == nil)
        let refused = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in try await session.fetchAll(Cents.self, "SELECT -5") }
        }
        #expect(refused?.code == .invalidValue)
        #expect(refused?.underlyingError is Cents.Negative)
        #expect(refused?.description.contains("Cents") == true)
        let notInteger = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in try await session.fetchOne(Cents.self, "SELECT 'seven'") }
        }
        #expect(notInteger?.code == .invalidValue)
    }

    /// The `DecodingError` that fetching `T` with `sql` throws; nil, recorded as an issue, when it throws another
    /// error or none.
    static func decodingError<T: Decodable & Sendable>(
        in pool: some DatabaseWriter, _ type: T.Type, _ sql: SQL
    ) async -> DecodingError? {
        do {
            _ = try await pool.read { session in try await session.fetchAll(T.self, sql) }
            Issue.record("\(sql): decoded \(T.self) without an error")
        } catch let error as DecodingError {
            return error
        } catch {
            Issue.record("\(sql): \(error), not a DecodingError")
        }
        return nil
    }

    static func underlying(_ error: DecodingError) -> DatabaseError? {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.underlyingError as? DatabaseError
        @unknown default: nil
        }
    }

    static func isValueNotFound(_ error: DecodingError) -> Bool {
        if case .valueNotFound = error { true } else { false }
    }

    static func isKeyNotFound(_ error: DecodingError) -> Bool {
        if case .keyNotFound = error { true } else { false }
    }
}
