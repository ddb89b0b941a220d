import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL values", .postgresServer)
struct PostgresValueTests {
    enum Mood: String, Codable, Equatable {
        case happy, sad
    }

    enum Level: Int, Codable, Equatable {
        case low = 1, high = 3
    }

    struct Address: Codable, Equatable {
        var street: String
        var tags: [String]
        var visits: [String: Int]
    }

    /// Every value kind of Strata's mapping, in one row.
    struct Everything: Model, Equatable {
        static let tableName = "everything"
        var id: Int64?
        var decimal: Decimal
        var date: Date
        var uuid: UUID
        var data: Data
        var bytes: [UInt8]
        var address: Address
        var list: [Int]
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var int: Int
        var uint8: UInt8
        var uint32: UInt32
        var uint64: UInt64
        var bool: Bool
        var double: Double
        var float: Float
        var string: String
        var url: URL
        var mood: Mood
        var level: Level
        var maybeText: String?
        var maybeNumber: Int?
        var maybeDate: Date?

        enum CodingKeys: String, CodingKey {
            case id, decimal, date, uuid, data, bytes, address, list, int8, int16, int32, int64, int, uint8, uint32
            case uint64, bool, double, float, string, url, mood, level, maybeNumber, maybeDate
            case maybeText = "note_text"  // a custom coding key names its column
        }

        static let createTable = """
            CREATE TABLE everything (
                id bigserial PRIMARY KEY, decimal numeric, date timestamptz, uuid uuid, data bytea, bytes bytea,
                address jsonb, list jsonb, int8 smallint, int16 smallint, int32 integer, int64 bigint, "int" bigint,
                uint8 smallint, uint32 bigint, uint64 bigint, bool boolean, double double precision, float real,
                string text, url text, mood text, level integer, note_text text, "maybeNumber" integer,
                "maybeDate" timestamptz)
            """
    }

    /// A date with whole microseconds, which timestamptz keeps exactly.
    static let microsecondDate = Date(timeIntervalSince1970: 1_790_123_456.654321)

    static func makeEverything() throws -> Everything {
        Everything(
            id: nil,
            decimal: try #require(
                Decimal(string: "12345678901234567890.1234567890123", locale: Locale(identifier: "en_US_POSIX"))),
            date: microsecondDate,
            uuid: try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
            data: Data([0, 1, 0, 255, 0]),
            bytes: [0, 0, 7],
            address: Address(street: "1 Main St", tags: ["a", "b\"c"], visits: ["x": 1, "y": 2]),
            list: [3, 1, 2],
            int8: -128, int16: 32_767, int32: -2_147_483_648, int64: .max, int: .min,
            uint8: 255, uint32: .max, uint64: UInt64(Int64.max),
            bool: true, double: 0.1 + 0.2, float: 1.5e-3, string: "héllo, 'world' \"quoted\" \u{1F600}",
            url: try #require(URL(string: "https://example.com/a?b=c")), mood: .sad, level: .high,
            maybeText: "present", maybeNumber: nil, maybeDate: microsecondDate)
    }

    @Test("every value kind round-trips exactly, and nil optionals are NULL")
    func everyValueKindRoundTrips() async throws {
        let everything = try Self.makeEverything()
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Everything.createTable) }
            let written = try await pool.write { db in
                var value = everything
                try await db.insert(&value)
                return value
            }
            var expected = everything
            expected.id = 1
            #expect(written == expected)
            let read = try #require(try await pool.read { db in try await db.find(Everything.self, id: 1) })
            #expect(read == expected)
            #expect(read.decimal.description == "12345678901234567890.1234567890123")

            // What PostgreSQL stored, in its own types.
            let stored = try await pool.read { db in
                try await db.fetchAll(
                    query: """
                        SELECT "decimal"::text AS "decimal", maybe_null, address->>'street' AS street,
                               jsonb_typeof(list) AS list_type, length(data) AS data_length, note_text,
                               pg_typeof("maybeNumber")::text AS number_type
                        FROM (SELECT *, "maybeNumber" IS NULL AS maybe_null FROM everything) AS e
                        """)
            }
            let row = try #require(stored.first)
            #expect(try row["decimal"] as String == "12345678901234567890.1234567890123")
            #expect(try row["maybe_null"] as Bool == true)
            #expect(try row.street as String == "1 Main St")
            #expect(try row["list_type"] as String == "array")
            #expect(try row["data_length"] as Int == 5)
            #expect(try row["note_text"] as String? == "present")
            #expect(try row["number_type"] as String == "integer")
            #expect(row.columnNames.first == "decimal")
            let unknown = #expect(throws: DatabaseError.self) { try row["nope"] as String }
            #expect(unknown?.code == .unknownColumn)

            let one = try await pool.read { db in
                try await db.fetchOne(query: "SELECT count(*) AS total, max(id) AS newest FROM everything")
            }
            #expect(try one?["total"] as Int? == 1)
            #expect(try one?.newest as Int64? == 1)
            // The shape of a SQLite row: columnCount, hasColumn, and decoding from either side.
            #expect(one?.columnCount == 2)
            #expect(one?.count == 2)
            #expect(one?.hasColumn("newest") == true)
            #expect(one?.hasColumn("oldest") == false)
            struct Totals: Decodable, Equatable {
                var total: Int
                var newest: Int64
            }
            let totals = try #require(one)
            #expect(try RowDecoder().decode(Totals.self, from: totals) == Totals(total: 1, newest: 1))
            #expect(try totals.decode(Totals.self) == Totals(total: 1, newest: 1))
        }
    }

    /// A storable type that is not `Decodable`, kept as the text of its value.
    struct Exact: DatabaseValueConvertible, Equatable {
        var text: String
        var databaseValue: DatabaseValue { .text(text) }
        init(databaseValue: DatabaseValue) throws {
            guard case .text(let text) = databaseValue else {
                throw DatabaseError(code: .invalidValue, message: "not text: \(databaseValue.storageClassName)")
            }
            self.text = text
        }
    }

    @Test("a storable type that is not Decodable reads a numeric as its exact text, never through a Double")
    func storableTypeReadsNumericExactly() async throws {
        try await PostgresTestServer.withPool { pool in
            let (numeric, values) = try await pool.read { db in
                (
                    try await db.fetchOne(Exact.self, "SELECT CAST('12345678901234567890.123456789' AS numeric)"),
                    try await db.fetchAll(
                        Exact.self,
                        "SELECT CAST(x AS numeric) FROM (VALUES ('0.1'), ('99999999999999999999.5')) AS t (x)")
                )
            }
            #expect(numeric?.text == "12345678901234567890.123456789")
            #expect(values.map(\.text) == ["0.1", "99999999999999999999.5"])
        }
    }

    @Test("a Date keeps microseconds: a finer part is rounded to the nearest microsecond")
    func datePrecision() async throws {
        try await PostgresTestServer.withPool { pool in
            let fine = Date(timeIntervalSince1970: 1_790_000_000.123456789)
            let (exact, rounded, text) = try await pool.read { db in
                let exact = try await db.fetchOne(
                    Date.self, query: "SELECT :date::timestamptz", parameters: ["date": Self.microsecondDate])
                let rounded = try await db.fetchOne(
                    Date.self, query: "SELECT :date::timestamptz", parameters: ["date": fine])
                let text = try await db.fetchOne(
                    String.self,
                    query: "SELECT to_char(:date::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')",
                    parameters: ["date": fine])
                return (exact, rounded, text)
            }
            #expect(exact == Self.microsecondDate)
            #expect(text == "2026-09-21 14:13:20.123457")
            let roundedInterval = try #require(rounded).timeIntervalSince1970
            #expect(abs(roundedInterval - 1_790_000_000.123457) < 1e-7)
        }
    }

    @Test("a decode error names the column, the stored PostgreSQL type and the expected Swift type")
    func decodeErrorNamesColumnAndTypes() async throws {
        struct Wrong: Decodable { var name: Int }
        try await PostgresTestServer.withPool { pool in
            let error = await #expect(throws: DecodingError.self) {
                try await pool.read { db in _ = try await db.fetchAll(Wrong.self, query: "SELECT 'x'::text AS name") }
            }
            guard case .typeMismatch(_, let context) = error else {
                Issue.record("expected a type mismatch, got \(String(describing: error))")
                return
            }
            #expect(context.debugDescription == "could not decode Int from TEXT - column \"name\" (index 0)")
            #expect(context.codingPath.map(\.stringValue) == ["name"])

            let null = await #expect(throws: DecodingError.self) {
                try await pool.read { db in _ = try await db.fetchAll(String.self, query: "SELECT NULL::text AS t") }
            }
            guard case .valueNotFound(_, let nullContext) = null else {
                Issue.record("expected a value not found, got \(String(describing: null))")
                return
            }
            #expect(nullContext.debugDescription == "could not decode String from NULL - column \"t\" (index 0)")
        }
    }

    @Test("an integer that does not fit the requested width throws, never truncates")
    func integerOutOfRange() async throws {
        try await PostgresTestServer.withPool { pool in
            let error = await #expect(throws: DecodingError.self) {
                try await pool.read { db in _ = try await db.fetchOne(Int8.self, query: "SELECT 300::int4 AS n") }
            }
            guard case .dataCorrupted(let context) = error else {
                Issue.record("expected data corrupted, got \(String(describing: error))")
                return
            }
            #expect(
                context.debugDescription == "could not decode Int8 from INTEGER (out of range) - column \"n\" (index 0)"
            )
            #expect((context.underlyingError as? DatabaseError)?.code == .valueOutOfRange)

            let negative = await #expect(throws: DecodingError.self) {
                try await pool.read { db in _ = try await db.fetchOne(UInt64.self, query: "SELECT -1::int8 AS n") }
            }
            #expect(negative != nil)
            let fits = try await pool.read { db in try await db.fetchOne(Int16.self, query: "SELECT 300::int8") }
            #expect(fits == 300)

            // An Encodable dictionary: StrataCore's parameter encoder names the parameter, as on SQLite.
            let tooBig = await #expect(throws: EncodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchOne(Int.self, query: "SELECT :n::int8", parameters: ["n": UInt64.max])
                }
            }
            guard case .invalidValue(_, let context) = tooBig else {
                Issue.record("no EncodingError.invalidValue")
                return
            }
            #expect((context.underlyingError as? DatabaseError)?.code == .valueOutOfRange)
            #expect(context.debugDescription.hasSuffix(" - parameter :n"))
        }
    }

    @Test("an Encodable value names the parameters; a parameter without a value throws")
    func encodableParameters() async throws {
        struct Filter: Encodable {
            var mood: String
            var since: Date
        }
        try await PostgresTestServer.withPool { pool in
            let result = try await pool.read { db in
                try await db.fetchOne(
                    String.self, query: "SELECT :mood || ' since ' || extract(year FROM :since AT TIME ZONE 'UTC')",
                    parameters: Filter(mood: "happy", since: Date(timeIntervalSince1970: 0)))
            }
            #expect(result == "happy since 1970")
            let error = await #expect(throws: EncodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchOne(Int.self, query: "SELECT :a + :b", parameters: ["a": 1])
                }
            }
            #expect("\(error.map { $0 } as Any)".contains("has no value for parameter :b of `SELECT :a + :b`"))
            // A dictionary of storable values is bound without the encoder.
            let values: [String: (any DatabaseValueConvertible)?] = ["a": 1]
            let unknown = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in
                    _ = try await db.fetchOne(Int.self, query: "SELECT :a + :b", parameters: values)
                }
            }
            #expect(unknown?.code == .unknownParameter)
            #expect(unknown?.message == "no value for the parameter :b")
            // ':' in strings, casts and comments is not a parameter.
            let text = try await pool.read { db in
                try await db.fetchOne(String.self, query: "SELECT ':notAParameter' || 1::text -- :nor this")
            }
            #expect(text == ":notAParameter1")
        }
    }

    @Test("an Encodable parameter binds as on SQLite: a list in order, a single value, a missing key an EncodingError")
    func encodableParameterShapes() async throws {
        struct Filter: Encodable {
            var a: Int
        }
        try await PostgresTestServer.withPool { pool in
            let sum = try await pool.read { db in
                try await db.fetchOne(Int.self, query: "SELECT $1::int8 + $2::int8", parameters: [40, 2])
            }
            #expect(sum == 42)
            let single = try await pool.read { db in
                try await db.fetchOne(String.self, query: "SELECT :name || '!'", parameters: "Ada")
            }
            #expect(single == "Ada!")
            let wrongLength = await #expect(throws: EncodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchOne(Int.self, query: "SELECT $1::int8", parameters: [1, 2])
                }
            }
            #expect("\(wrongLength.map { $0 } as Any)".contains("a list of 2 values"))
            let missing = await #expect(throws: EncodingError.self) {
                try await pool.read { db in
                    _ = try await db.fetchOne(Int.self, query: "SELECT :a + :b", parameters: Filter(a: 1))
                }
            }
            #expect("\(missing.map { $0 } as Any)".contains("Filter has no value for parameter :b"))
        }
    }
}
