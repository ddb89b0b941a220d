import Foundation
import Strata
import StrataPostgres
import Testing

/// `numeric`, `double precision` and `real` values come back exactly, or throw: an integer is read from a numeric's
/// digits, a Decimal never drops a digit, and a Double or Float keeps every digit in a numeric column.
@Suite("PostgreSQL numbers", .postgresServer)
struct PostgresNumberMappingTests {
    /// A row of one column, `value`.
    struct Holder<T: Decodable & Sendable>: Decodable, Sendable { var value: T }

    /// Reads `sql`'s one value as `T`, through `fetchOne` of a scalar, a row's subscript and `fetchAll` of a model
    /// (whose rows after the first take the direct reads): each must give the same value, or each must throw.
    static func read<T: Decodable & Sendable & Equatable>(
        _ type: T.Type, _ sql: String, pool: PostgresPool
    ) async throws -> T {
        let (scalar, row, all) = try await pool.read { db in
            let scalar = try #require(try await db.fetchOne(T.self, query: "SELECT \(sql) AS value"))
            let row = try #require(try await db.fetchOne(query: "SELECT \(sql) AS value"))
            let all = try await db.fetchAll(Holder<T>.self, query: "SELECT \(sql) AS value FROM generate_series(1, 2)")
            return (scalar, try row["value"] as T, all.map(\.value))
        }
        #expect(row == scalar)
        #expect(all == [scalar, scalar])
        return scalar
    }

    /// The error each reading path of ``read(_:_:pool:)`` throws for `sql` as `T`, which must be one.
    static func failure<T: Decodable & Sendable>(_ type: T.Type, _ sql: String, pool: PostgresPool) async -> [String] {
        var messages: [String] = []
        let scalar = await #expect(throws: (any Error).self, "\(T.self) from \(sql)") {
            try await pool.read { db in _ = try await db.fetchOne(T.self, query: "SELECT \(sql) AS value") }
        }
        let row = await #expect(throws: (any Error).self, "\(T.self) from \(sql) in a row") {
            try await pool.read { db in
                let row = try #require(try await db.fetchOne(query: "SELECT \(sql) AS value"))
                _ = try row["value"] as T
            }
        }
        let all = await #expect(throws: (any Error).self, "\(T.self) from \(sql) in fetchAll") {
            try await pool.read { db in
                _ = try await db.fetchAll(Holder<T>.self, query: "SELECT \(sql) AS value FROM generate_series(1, 2)")
            }
        }
        for error in [scalar, row, all] {
            if let error = error as? DecodingError, case .dataCorrupted(let context) = error {
                messages.append(context.debugDescription)
            } else if let error = error as? DecodingError, case .typeMismatch(_, let context) = error {
                messages.append(context.debugDescription)
            } else {
                messages.append(String(describing: error))
            }
        }
        return messages
    }

    @Test("a numeric read as an integer is exact: the sum of two bigints above 2^52 keeps its last digit")
    func numericIntegersAreExact() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE amount (n bigint)")
                try await db.execute(query: "INSERT INTO amount VALUES (4503599627370497), (4503599627370496)")
            }
            #expect(try await Self.read(Int.self, "(SELECT sum(n) FROM amount)", pool: pool) == 9_007_199_254_740_993)
            #expect(try await Self.read(Int64.self, "(SELECT sum(n) FROM amount)", pool: pool) == 9_007_199_254_740_993)
            #expect(try await Self.read(Int.self, "'9223372036854775807'::numeric", pool: pool) == .max)
            #expect(try await Self.read(Int64.self, "'-9223372036854775808'::numeric", pool: pool) == .min)
            #expect(try await Self.read(UInt64.self, "'18446744073709551615'::numeric", pool: pool) == .max)
            #expect(try await Self.read(UInt.self, "'18446744073709551615'::numeric", pool: pool) == .max)
            #expect(try await Self.read(Int8.self, "'-128'::numeric", pool: pool) == -128)
            #expect(try await Self.read(UInt8.self, "'255.000'::numeric", pool: pool) == 255)
            #expect(try await Self.read(Int16.self, "'-32768'::numeric", pool: pool) == -32_768)
            #expect(try await Self.read(Int32.self, "'2147483647'::numeric", pool: pool) == .max)
            #expect(try await Self.read(UInt32.self, "'4294967295'::numeric", pool: pool) == .max)
            #expect(try await Self.read(UInt16.self, "'10000'::numeric", pool: pool) == 10_000)
            #expect(try await Self.read(Int.self, "'100000000'::numeric", pool: pool) == 100_000_000)
            #expect(try await Self.read(Int.self, "'0.0000'::numeric", pool: pool) == 0)
            #expect(try await Self.read(Int.self, "'-0'::numeric", pool: pool) == 0)
            #expect(try await Self.read(Bool.self, "'1'::numeric", pool: pool) == true)

            let outOfRange: [(any (Decodable & Sendable).Type, String)] = [
                (Int8.self, "'128'::numeric"),
                (Int8.self, "'-129'::numeric"), (UInt8.self, "'-1'::numeric"), (UInt64.self, "'-1'::numeric"),
                (Int64.self, "'9223372036854775808'::numeric"), (Int64.self, "'-9223372036854775809'::numeric"),
                (UInt64.self, "'18446744073709551616'::numeric"), (Int.self, "'1e40'::numeric"),
                (Int16.self, "'32768'::numeric"), (UInt32.self, "'4294967296'::numeric"),
            ]
            for (type, sql) in outOfRange {
                for message in await Self.failure(type, sql, pool: pool) {
                    #expect(message.contains("(out of range)"), "\(type) from \(sql): \(message)")
                }
            }
            for sql in ["'1.5'::numeric", "'-0.0001'::numeric", "'NaN'::numeric", "'Infinity'::numeric"] {
                for message in await Self.failure(Int.self, sql, pool: pool) {
                    #expect(message.contains("(not an integer)"), "Int from \(sql): \(message)")
                }
            }
        }
    }

    @Test("a numeric with more digits than Decimal holds throws instead of being rounded")
    func decimalNeverRounds() async throws {
        try await PostgresTestServer.withPool { pool in
            let digits38 = "12345678901234567890123456789012345678"
            let read = try await Self.read(Decimal.self, "'\(digits38)'::numeric", pool: pool)
            #expect(read.description == digits38)
            let fraction = try await Self.read(
                Decimal.self, "'-0.00012345678901234567890123456789012345678'::numeric", pool: pool)
            #expect(fraction.description == "-0.00012345678901234567890123456789012345678")
            #expect(try await Self.read(Decimal.self, "'1.50000'::numeric", pool: pool).description == "1.5")
            #expect(
                try await Self.read(Decimal.self, "'1e30'::numeric", pool: pool).description == "1"
                    + String(repeating: "0", count: 30))

            let tooLong = [
                "'1234567890123456789012345678901234567890123'::numeric",  // 43 digits
                "'0.1234567890123456789012345678901234567891'::numeric",  // a 40-digit fraction
                "'1e-200'::numeric", "'Infinity'::numeric", "'-Infinity'::numeric",
            ]
            for sql in tooLong {
                for message in await Self.failure(Decimal.self, sql, pool: pool) {
                    #expect(message.contains("could not decode Decimal from NUMERIC"), "\(sql): \(message)")
                }
            }
            #expect(try await Self.read(Decimal.self, "'NaN'::numeric", pool: pool).isNaN)
        }
    }

    /// Doubles that PostgreSQL's own float8-to-numeric conversion (15 digits) would change, and some it keeps.
    static let doubles: [Double] = [
        0.1 + 0.2, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
        .leastNormalMagnitude, 1.0 / 3, .pi, 123_456_789_012_345_680, 9_007_199_254_740_992, 0.1, 1e-7, -2.5, 1e300,
    ]

    @Test("a Double keeps every digit in numeric, double precision and a parameter, and reads back as itself")
    func doublesAreExact() async throws {
        struct Row: Model, Equatable {
            static let tableName = "measure"
            var id: Int64
            var exact: Double
            var double: Double
            var decimal: Decimal?
        }
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(
                    query: "CREATE TABLE measure (id bigint PRIMARY KEY, exact numeric, double float8, decimal numeric)"
                )
            }
            let rows = Self.doubles.enumerated().map {
                Row(id: Int64($0.offset), exact: $0.element, double: $0.element, decimal: nil)
            }
            let inserted = try await pool.write { db in
                var written: [Row] = []
                for var row in rows {
                    try await db.insert(&row)
                    written.append(row)
                }
                return written
            }
            #expect(inserted == rows)
            let read = try await pool.read { db in try await db.fetchAll(Row.order(Column("id"))) }
            #expect(read == rows)
            for row in rows {
                let (found, text, echoed) = try await pool.read { db in
                    let found = try await db.fetchAll(
                        Row.filter(Column("exact") == row.exact && Column("double") == row.double))
                    let text = try await db.fetchOne(
                        String.self, query: "SELECT exact::text FROM measure WHERE id = :id", parameters: ["id": row.id]
                    )
                    let echoed = try await db.fetchOne(
                        Double.self, query: "SELECT :value", parameters: ["value": row.exact])
                    return (found, text, echoed)
                }
                #expect(found == [row], "\(row.exact)")
                #expect(echoed == row.exact)
                // The numeric holds a text that reads as the same Double: the Double's shortest text, digit for digit,
                // where Decimal can compare them.
                #expect(text.flatMap(Double.init) == row.exact, "\(row.exact)")
                if let text, Self.plain(row.exact) {
                    let posix = Locale(identifier: "en_US_POSIX")
                    #expect(
                        Decimal(string: text, locale: posix) == Decimal(string: row.exact.description, locale: posix),
                        "\(row.exact)")
                }
            }
            let sum = try await pool.read { db in
                try await db.fetchOne(String.self, query: "SELECT exact::text FROM measure WHERE id = 0")
            }
            #expect(sum == "0.30000000000000004")
        }
    }

    /// Whether `value`'s shortest text has few enough digits for Decimal, which the test compares it with.
    static func plain(_ value: Double) -> Bool {
        abs(value) < 1e30 && abs(value) > 1e-30
    }

    @Test(
        "-0.0, infinities and NaN: kept in double precision; in numeric, NaN and the infinities read back, Int throws")
    func specialDoubles() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE special (id int PRIMARY KEY, d float8, n numeric)")
            }
            let values: [Double] = [-0.0, .infinity, -.infinity, .nan]
            try await pool.write { db in
                for (id, value) in values.enumerated() {
                    try await db.execute(
                        query: "INSERT INTO special VALUES (:id, :value, :value)",
                        parameters: ["id": id, "value": value])
                }
            }
            let doubles = try await pool.read { db in
                try await db.fetchAll(Double.self, query: "SELECT d FROM special ORDER BY id")
            }
            #expect(doubles.count == 4)
            #expect(doubles.first?.sign == .minus && doubles.first == 0)
            #expect(doubles.dropFirst().prefix(2) == [.infinity, -.infinity])
            #expect(doubles.last?.isNaN == true)
            let numerics = try await pool.read { db in
                try await db.fetchAll(Double.self, query: "SELECT n FROM special ORDER BY id")
            }
            // numeric has no negative zero.
            #expect(numerics.first == 0)
            #expect(numerics.dropFirst().prefix(2) == [.infinity, -.infinity])
            #expect(numerics.last?.isNaN == true)
            let text = try await pool.read { db in
                try await db.fetchAll(String.self, query: "SELECT n::text FROM special ORDER BY id")
            }
            #expect(text == ["0", "Infinity", "-Infinity", "NaN"])
        }
    }

    @Test("a Float keeps every digit in real and numeric; a value beyond Float's range throws instead of becoming inf")
    func floatsAreExact() async throws {
        struct Row: Model, Equatable {
            static let tableName = "small"
            var id: Int64
            var real: Float
            var exact: Float
            var double: Float
        }
        let floats: [Float] = [
            0.1, 16_777_216, 1.2345678, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1 + 0.2, 3.4028e38,
        ]
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(
                    query: "CREATE TABLE small (id bigint PRIMARY KEY, real real, exact numeric, double float8)")
            }
            let rows = floats.enumerated().map {
                Row(id: Int64($0.offset), real: $0.element, exact: $0.element, double: $0.element)
            }
            try await pool.write { db in
                for var row in rows { try await db.insert(&row) }
            }
            let read = try await pool.read { db in try await db.fetchAll(Row.order(Column("id"))) }
            #expect(read == rows)
            let text = try await pool.read { db in
                try await db.fetchAll(
                    String.self, query: "SELECT exact::text FROM small WHERE id IN (1, 2) ORDER BY id")
            }
            #expect(text == ["16777216.0", "1.2345678"])

            for message in await Self.failure(Float.self, "1e300::float8", pool: pool) {
                #expect(message.contains("could not decode Float from DOUBLE PRECISION (out of range)"), "\(message)")
            }
            for message in await Self.failure(Double.self, "'1e400'::numeric", pool: pool) {
                #expect(message.contains("could not decode Double from NUMERIC (out of range)"), "\(message)")
            }
            #expect(try await Self.read(Float.self, "'Infinity'::float8", pool: pool) == .infinity)
        }
    }

    @Test("an integer too wide for its column is refused by the server, never wrapped")
    func narrowColumnsRefuse() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE narrow (s smallint, i integer)") }
            for (column, value) in [("s", 32_768), ("i", 2_147_483_648), ("s", -32_769)] {
                let error = await #expect(throws: PostgresError.self) {
                    try await pool.write { db in
                        try await db.execute(
                            query: "INSERT INTO narrow (\(column)) VALUES (:value)", parameters: ["value": value])
                    }
                }
                #expect(error?.sqlState == "22003")
            }
        }
    }
}
