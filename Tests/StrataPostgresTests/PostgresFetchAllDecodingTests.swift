import Foundation
import Strata
import StrataPostgres
import Testing

/// `fetchAll` reads the rows of a result with the layout and key plan of its first row, and the standard library's
/// types read the usual binary columns directly: these tests hold it to what decoding one row at a time gives
/// (`fetchOne`, which builds every cell), values and errors alike, on rows after the first.
@Suite("PostgreSQL fetchAll decoding", .postgresServer)
struct PostgresFetchAllDecodingTests {
    /// Every column type the direct reads take, and some they leave to the general path, in one row.
    struct Wide: Decodable, Equatable {
        var small: Int16
        var medium: Int32
        var big: Int64
        var int: Int
        var byte: UInt8
        var unsigned: UInt64
        var real: Float
        var double: Double
        var narrowed: Float
        var widened: Double
        var numeric: Double
        var flag: Bool
        var flagFromInteger: Bool
        var text: String
        var varchar: String
        var bpchar: String
        var name: String
        var json: String
        var uuid: String
        var bytes: Data
        var byteArray: [UInt8]
        var maybe: Int?
        var maybeText: String?
        var maybeData: Data?
        var missing: Int?
    }

    /// Five rows of `Wide`'s columns; `maybe`, `maybe_text` and `maybe_data` are NULL in the even rows.
    static let wideSQL = """
        SELECT i::int2 AS small, (i * 100000)::int4 AS medium, i::int8 * 10000000000 AS big, (-i)::int4 AS "int",
               (250 + i)::int2 AS byte, i::int8 * 1000 AS unsigned, (i / 4.0)::float4 AS real,
               (i / 10.0)::float8 AS double, (i / 10.0)::float8 AS narrowed, (i * 3)::int4 AS widened,
               (i / 8.0)::numeric AS numeric, i % 2 = 0 AS flag, (i % 2)::int2 AS "flagFromInteger",
               'héllo ' || i AS text, ('v' || i)::varchar(8) AS varchar, ('b' || i)::char(4) AS bpchar,
               ('n' || i)::name AS name, ('{"i": ' || i || '}')::json AS json,
               ('00000000-0000-0000-0000-00000000000' || i)::uuid AS uuid,
               decode(repeat('00ff', i), 'hex') AS bytes, decode('0102' || lpad(i::text, 2, '0'), 'hex') AS "byteArray",
               CASE WHEN i % 2 = 1 THEN i END AS maybe, CASE WHEN i % 2 = 1 THEN 'm' || i END AS "maybeText",
               CASE WHEN i % 2 = 1 THEN decode('aa', 'hex') END AS "maybeData"
        FROM generate_series(:from::int4, :to::int4) AS i ORDER BY i
        """

    @Test("every column type reads as decoding one row at a time reads it")
    func valuesMatchSingleRows() async throws {
        try await PostgresTestServer.withPool { pool in
            let (all, single) = try await pool.read { db in
                let all = try await db.fetchAll(Wide.self, query: Self.wideSQL, parameters: ["from": 1, "to": 5])
                var single: [Wide] = []
                for index in 1...5 {
                    let row = try await db.fetchOne(
                        Wide.self, query: Self.wideSQL, parameters: ["from": index, "to": index])
                    single.append(try #require(row))
                }
                return (all, single)
            }
            #expect(all == single)
            #expect(all.count == 5)
            let third = try #require(all.dropFirst(2).first)
            #expect(third.small == 3 && third.medium == 300_000 && third.big == 30_000_000_000 && third.int == -3)
            #expect(third.byte == 253 && third.unsigned == 3000)
            #expect(third.real == 0.75 && third.double == 0.3 && third.narrowed == Float(0.3) && third.widened == 9)
            #expect(third.numeric == 0.375 && third.flag == false && third.flagFromInteger == true)
            #expect(third.text == "héllo 3" && third.varchar == "v3" && third.bpchar == "b3  " && third.name == "n3")
            #expect(third.json == #"{"i": 3}"# && third.uuid == "00000000-0000-0000-0000-000000000003")
            #expect(third.bytes == Data([0, 255, 0, 255, 0, 255]) && third.byteArray == [1, 2, 3])
            #expect(third.maybe == 3 && third.maybeText == "m3" && third.maybeData == Data([0xAA]))
            #expect(third.missing == nil)
            let fourth = try #require(all.dropFirst(3).first)
            #expect(fourth.maybe == nil && fourth.maybeText == nil && fourth.maybeData == nil)
        }
    }

    /// A one-field model of `T`, read from the column `value`.
    struct One<T: Decodable>: Decodable {
        var id: Int
        var value: T
    }

    /// What a decoding error says: its case, the type, the key path and the message.
    static func describe(_ error: (any Error)?) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, let context):
            return "typeMismatch \(type) \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound \(type) \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "keyNotFound \(key.stringValue) \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "dataCorrupted \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case nil:
            return "not a DecodingError: \(String(describing: error))"
        @unknown default:
            return "\(String(describing: error))"
        }
    }

    /// The error of decoding the rows 1 to 4 of `SELECT i AS id, <value> AS value` as `One<T>` with `fetchAll`,
    /// and the error of decoding its row 3 alone with `fetchOne`.
    static func errors<T: Decodable>(_ type: T.Type, value: String, pool: PostgresPool) async throws
        -> (all: String, single: String)
    {
        let sql = "SELECT i AS id, \(value) AS value FROM generate_series(:from::int4, 4) AS i ORDER BY i"
        let all = await #expect(throws: DecodingError.self) {
            try await pool.read { db in
                _ = try await db.fetchAll(One<T>.self, query: sql, parameters: ["from": 1])
            }
        }
        let single = await #expect(throws: DecodingError.self) {
            try await pool.read { db in
                _ = try await db.fetchOne(One<T>.self, query: sql, parameters: ["from": 3])
            }
        }
        return (describe(all), describe(single))
    }

    @Test("a value that fails on a later row throws what decoding that row alone throws")
    func laterRowErrors() async throws {
        try await PostgresTestServer.withPool { pool in
            // NULL in the third row only.
            let nullable = "CASE WHEN i <> 3 THEN i END"
            var cases: [(String, String)] = []
            cases.append(try await Self.errors(Int.self, value: "(\(nullable))::int8", pool: pool))
            cases.append(try await Self.errors(Int32.self, value: "(\(nullable))::int4", pool: pool))
            cases.append(try await Self.errors(Double.self, value: "(\(nullable))::float8", pool: pool))
            cases.append(try await Self.errors(Float.self, value: "(\(nullable))::float4", pool: pool))
            cases.append(try await Self.errors(Bool.self, value: "(\(nullable)) > 0", pool: pool))
            cases.append(try await Self.errors(String.self, value: "(\(nullable))::text", pool: pool))
            cases.append(try await Self.errors(Data.self, value: "decode((\(nullable))::text, 'escape')", pool: pool))
            // Out of range in the third row only: 150 is above Int8.max, -1 below UInt64's range, 2 is no Bool.
            cases.append(try await Self.errors(Int8.self, value: "(i * 50)::int4", pool: pool))
            cases.append(try await Self.errors(Int8.self, value: "(i * 50)::int8", pool: pool))
            cases.append(try await Self.errors(Int8.self, value: "(i * 50)::int2", pool: pool))
            cases.append(try await Self.errors(UInt64.self, value: "(2 - i)::int8", pool: pool))
            cases.append(try await Self.errors(Bool.self, value: "(i / 3 * 2)::int4", pool: pool))
            // A column of a type the requested one does not read, on every row.
            cases.append(try await Self.errors(Int.self, value: "i::text", pool: pool))
            cases.append(try await Self.errors(Int.self, value: "i > 2", pool: pool))
            cases.append(try await Self.errors(String.self, value: "i::int4", pool: pool))
            cases.append(try await Self.errors(Double.self, value: "i > 2", pool: pool))
            cases.append(try await Self.errors(Bool.self, value: "i::text", pool: pool))
            cases.append(try await Self.errors(Data.self, value: "i::int8", pool: pool))
            cases.append(try await Self.errors(Int.self, value: "i::float8 / 2", pool: pool))
            for (all, single) in cases {
                #expect(all == single)
                #expect(!all.hasPrefix("not a DecodingError"))
            }
            #expect(
                cases.first?.0
                    == #"valueNotFound Int ["value"] could not decode Int from NULL - column "value" (index 1)"#)
            #expect(
                cases.dropFirst(7).first?.0
                    == #"dataCorrupted ["value"] could not decode Int8 from INTEGER (out of range) - column "value" (index 1)"#
            )
            #expect(
                cases.dropFirst(12).first?.0
                    == #"typeMismatch Int ["value"] could not decode Int from TEXT - column "value" (index 1)"#)

            // A column the rows do not have.
            let missing = await #expect(throws: DecodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchAll(One<Int>.self, query: "SELECT i AS id FROM generate_series(1, 3) AS i")
                }
            }
            guard case .keyNotFound(let key, _) = missing else {
                Issue.record("expected a missing key, got \(String(describing: missing))")
                return
            }
            #expect(key.stringValue == "value")
        }
    }

    /// Two integers.
    struct Pair: Decodable, Sendable {
        var value: Int
        var boom: Int
    }

    @Test("rows decode as they arrive, but an error of the server after a row that does not decode still wins")
    func serverErrorWinsOverDecodingError() async throws {
        try await PostgresTestServer.withPool { pool in
            // The second row does not decode (NULL); the server fails later, dividing by zero at row 5,000, after
            // thousands of rows were sent.
            let sql = """
                SELECT CASE WHEN i <> 2 THEN i END AS value, 1 / (5000 - i) AS boom
                FROM generate_series(1, 10000) AS i
                """
            let error = await #expect(throws: PostgresError.self) {
                try await pool.read { db in _ = try await db.fetchAll(Pair.self, query: sql) }
            }
            #expect(error?.sqlState == "22012")
            // Without the server's error, the row's own error.
            let decoding = await #expect(throws: DecodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchAll(Pair.self, query: sql.replacingOccurrences(of: "5000 - i", with: "1"))
                }
            }
            #expect(Self.describe(decoding).hasPrefix("valueNotFound Int [\"value\"]"))
            // The session goes on after both.
            let count = try await pool.read { db in
                try await db.fetchAll(Pair.self, query: "SELECT i AS value, i AS boom FROM generate_series(1, 3) AS i")
            }
            #expect(count.map(\.value) == [1, 2, 3])
        }
    }

    /// A value that asks for its columns in an order that depends on the row.
    struct Varying: Decodable, Equatable {
        var kind: String
        var value: String

        enum CodingKeys: String, CodingKey {
            case kind, number, text
        }

        init(kind: String, value: String) {
            self.kind = kind
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if try container.decodeNil(forKey: .text) {
                value = String(try container.decode(Int64.self, forKey: .number))
                kind = try container.decode(String.self, forKey: .kind)
            } else {
                kind = try container.decode(String.self, forKey: .kind)
                value = try container.decode(String.self, forKey: .text)
            }
        }
    }

    @Test("rows that look their keys up in another order than the first row read the right columns")
    func keysInAnotherOrder() async throws {
        try await PostgresTestServer.withPool { pool in
            let values = try await pool.read { db in
                try await db.fetchAll(
                    Varying.self,
                    query: """
                        SELECT CASE WHEN i % 2 = 0 THEN 'n' ELSE 't' END AS kind, i::int8 * 7 AS number,
                               CASE WHEN i % 2 = 1 THEN 'x' || i END AS text
                        FROM generate_series(1, 4) AS i ORDER BY i
                        """)
            }
            #expect(
                values == [
                    Varying(kind: "t", value: "x1"), Varying(kind: "n", value: "14"),
                    Varying(kind: "t", value: "x3"), Varying(kind: "n", value: "28"),
                ])
        }
    }

    /// A value that keeps the decoder it was decoded with.
    final class Keeper: Decodable, @unchecked Sendable {
        let number: Int
        let decoder: any Decoder

        enum CodingKeys: String, CodingKey {
            case number
        }

        init(from decoder: any Decoder) throws {
            self.decoder = decoder
            number = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .number)
        }
    }

    @Test("a value that keeps its decoder keeps its own row: the next rows get another decoder")
    func keptDecoder() async throws {
        try await PostgresTestServer.withPool { pool in
            let keepers = try await pool.read { db in
                try await db.fetchAll(
                    Keeper.self, query: "SELECT i AS number FROM generate_series(1, 4) AS i ORDER BY i")
            }
            #expect(keepers.map(\.number) == [1, 2, 3, 4])
            let again = try keepers.map { try Keeper(from: $0.decoder).number }
            #expect(again == [1, 2, 3, 4])
        }
    }
}
