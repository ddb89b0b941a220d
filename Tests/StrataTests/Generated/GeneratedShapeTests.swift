import Foundation
import StrataRecord
import Testing

@testable import Strata

/// Declaration shapes, unusual boxes, unusual rows and statements shared between types: the generated code still
/// gives what `Codable` gives.
@Suite("Generated records: declaration shapes and shared statements")
struct GeneratedShapeTests {
    @Test("Every declaration shape binds and reads what Codable does")
    func declarationShapes() throws {
        #expect(GEdge.recordKeys == GEdge.columnNames)
        let db = try makeDatabase()
        try db.execute(query: GEdge.createTable("edge"))
        try db.execute(query: GEdge.createTable("edge_codable"))
        let values = [
            GEdge(id: 1, number: 6, secret: "s1", optionals: nil),
            GEdge(id: 2, number: -7, secret: "", optionals: .min),
            GEdge(id: 3, number: .max, secret: "' OR 1=1 --", optionals: 0),
        ]
        let generatedInsert = try db.prepare(query: GEdge.insertSQL("edge"))
        let codableInsert = try db.prepare(query: GEdge.insertSQL("edge_codable"))
        for value in values {
            try StatementEncoder().encode(value, to: generatedInsert)
            try generatedInsert.perform()
            try Path.codableEncoder.encode(value, to: codableInsert)
            try codableInsert.perform()
        }
        let rows = try storedRows(db, "edge")
        expectSameStoredRows(rows, try storedRows(db, "edge_codable"), "declaration shapes")
        #expect(rows.map { $0["default"] } == [.integer(6), .integer(-7), .integer(.max)])
        #expect(rows.map { $0["secret"] } == [.text("s1"), .text(""), .text("' OR 1=1 --")])
        #expect(rows.map { $0["cents"] } == [.integer(600), .integer(-700), .integer(.max &* 100)])
        #expect(rows.map { $0["unwrapped"] } == [.null, .integer(.min), .integer(0)])
        #expect(rows.map { $0["color"] } == [.text("red"), .text("green"), .text("green")])
        #expect(
            rows.map { $0["bytes"] }
                == [Data([0, 255, 6]), Data([0, 255, 249]), Data([0, 255, 255])].map { .blob($0) })

        let query = "SELECT * FROM edge ORDER BY id"
        let generated = try db.fetchAll(GEdge.self, query: query)
        let codable = try fetchAllDecodable(db, GEdge.self, query: query, decoder: Path.codableDecoder)
        expectIdentical(generated, codable)
        #expect(generated == values)
        #expect(generated.map(\.secretValue) == ["s1", "", "' OR 1=1 --"])

        // The property with a default is decoded: a row without its column is an error both ways.
        let withoutDefault =
            "SELECT " + GEdge.columnNames.dropLast().map { "\"\($0)\"" }.joined(separator: ", ")
            + " FROM edge"
        let missing = outcome { try db.fetchAll(GEdge.self, query: withoutDefault) }
        let missingCodable = outcome {
            try fetchAllDecodable(db, GEdge.self, query: withoutDefault, decoder: Path.codableDecoder)
        }
        expectSameOutcome(missing, missingCodable, "no withDefault column")
        #expect(ErrorShape(try #require(missing.failure)).subject == "withDefault")

        // Optionals however spelled: a missing column or NULL is nil.
        let optionals =
            "SELECT id, \"default\", \"left\", \"right\", observed, secret, kind, color, cents, bytes, "
            + "\"set\", points, withDefault, NULL AS unwrapped FROM edge ORDER BY id"
        let sparse = try db.fetchAll(GEdge.self, query: optionals)
        expectIdentical(sparse, try fetchAllDecodable(db, GEdge.self, query: optionals, decoder: Path.codableDecoder))
        #expect(sparse.map(\.spelled) == [nil, nil, nil])
        #expect(sparse.map { $0.unwrapped } == [nil, nil, nil])
        #expect(sparse.map(\.aliased) == [nil, nil, nil])
        #expect(sparse.map(\.optCents) == [nil, nil, nil])
        #expect(sparse.map(\.default) == [6, -7, .max])

        // A custom conversion that throws, an unknown raw value of a convertible enum: the same errors.
        for (column, sql) in [("cents", "'x'"), ("optCents", "1.5"), ("color", "'blue'"), ("optColor", "3")] {
            let bad = Self.edgeQuery(replacing: column, with: sql)
            let generatedError = outcome { try db.fetchAll(GEdge.self, query: bad) }
            let codableError = outcome {
                try fetchAllDecodable(db, GEdge.self, query: bad, decoder: Path.codableDecoder)
            }
            expectSameOutcome(generatedError, codableError, "\(sql) in \(column)")
            #expect(generatedError.failure != nil, "\(sql) in \(column)")
        }
    }

    /// The rows of `edge` with one column's SQL replaced.
    static func edgeQuery(replacing column: String, with sql: String) -> String {
        "SELECT "
            + GEdge.columnNames.map { $0 == column ? "\(sql) AS \"\($0)\"" : "\"\($0)\"" }
            .joined(separator: ", ") + " FROM edge"
    }

    @Test("The error of a custom conversion names its column, as row[column] does, both ways")
    func customConversionError() throws {
        let db = try makeDatabase()
        try db.execute(query: GEdge.createTable("edge"))
        try db.insert(GEdge(id: 1, number: 1, secret: "s", optionals: 2))
        for (column, sql) in [("cents", "'x'"), ("optCents", "1.5")] {
            let bad = Self.edgeQuery(replacing: column, with: sql)
            let generated = outcome { try db.fetchAll(GEdge.self, query: bad) }
            let codable = outcome { try fetchAllDecodable(db, GEdge.self, query: bad, decoder: Path.codableDecoder) }
            expectSameOutcome(generated, codable, "\(sql) in \(column)")
            // DatabaseValueConvertible's documentation: "When init(databaseValue:) throws, Strata reports the error
            // with the column it was reading and keeps yours as DatabaseError/underlyingError", as `row[column]`
            // does: "could not decode GCents from TEXT: not a number of cents - column "cents" (index 0)".
            let rowError = #expect(throws: DatabaseError.self) {
                let row = try #require(try db.prepare(query: bad).next())
                let _: GCents? = try row[column]
            }
            #expect(rowError?.column == column)
            for (path, result) in [("generated", generated), ("Codable", codable)] {
                let shape = ErrorShape(try #require(result.failure))
                let label = "\(sql) in \(column), \(path): \(shape)"
                #expect(shape.kind.hasPrefix("DecodingError."), "\(label)")
                #expect(shape.codingPath == [column], "\(label)")
                #expect(shape.debugDescription.contains("column \"\(column)\""), "\(label)")
                #expect(shape.underlying?.contains("not a number of cents") == true, "\(label)")
            }
        }
    }

    @Test("Boxes of optionals, enums, nested values and convertible types read the same both ways")
    func unusualBoxes() throws {
        let rows = [
            "NULL", "1", "-1", "'red'", "'one'", "'x'", "1.5", "x'00'", #"'{"x":1,"label":"","tags":[]}'"#, "'[1,2]'",
            "'[1,'",
        ]
        let db = try makeDatabase()
        for sql in rows {
            let query = "SELECT \(sql) AS v"
            try compareBoxes(db, query, Int?.self)
            try compareBoxes(db, query, GMood?.self)
            try compareBoxes(db, query, GColor?.self)
            try compareBoxes(db, query, GPoint?.self)
            try compareBoxes(db, query, [Int].self)
            try compareBoxes(db, query, [Int?]?.self)
            try compareBoxes(db, query, GCents.self)
            try compareBoxes(db, query, GLevel.self)
            try compareBoxes(db, query, Set<Int>.self)
            try compareBoxes(db, query, [String: Int].self)
        }
        // A row without the column.
        try compareBoxes(db, "SELECT 1 AS w", Int?.self)
        try compareBoxes(db, "SELECT 1 AS w", GMood.self)
        // Values the boxes must read.
        #expect(try db.fetchAll(GBox<Int?>.self, query: "SELECT NULL AS v").map(\.v) == [nil])
        #expect(try db.fetchAll(GBox<GColor?>.self, query: "SELECT 'red' AS v").map(\.v) == [.red])
        #expect(try db.fetchAll(GBox<[Int]>.self, query: "SELECT '[1,2]' AS v").map(\.v) == [[1, 2]])
        #expect(try db.fetchAll(GOptionalBox<GCents>.self, query: "SELECT 1 AS v").map(\.v) == [GCents(cents: 1)])
        #expect(try db.fetchAll(GOptionalBox<GCents>.self, query: "SELECT 1 AS w").map(\.v) == [nil])
    }

    private func compareBoxes<T: Codable & Equatable>(
        _ db: Database, _ query: String, _ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let label = "\(query) as \(T.self)"
        expectSameOutcome(
            outcome { try db.fetchAll(GBox<T>.self, query: query).map(\.v) },
            outcome { try fetchAllDecodable(db, GBox<T>.self, query: query, decoder: Path.codableDecoder).map(\.v) },
            label, sourceLocation: sourceLocation)
        expectSameOutcome(
            outcome { try db.fetchAll(GOptionalBox<T>.self, query: query).map(\.v) },
            outcome {
                try fetchAllDecodable(db, GOptionalBox<T>.self, query: query, decoder: Path.codableDecoder).map(\.v)
            },
            label + "?", sourceLocation: sourceLocation)
        // Bound back both ways.
        guard let value = try? db.fetchAll(GBox<T>.self, query: query).first else { return }
        let generated = outcome { () -> [DatabaseValue] in
            let statement = try db.prepare(query: "SELECT :v")
            try StatementEncoder().encode(value, to: statement)
            return try statement.next().map { [try $0[0]] } ?? []
        }
        let codable = outcome { () -> [DatabaseValue] in
            let statement = try db.prepare(query: "SELECT :v")
            try Path.codableEncoder.encode(value, to: statement)
            return try statement.next().map { [try $0[0]] } ?? []
        }
        expectSameOutcome(
            generated.map { $0.map(StoredCell.init) }, codable.map { $0.map(StoredCell.init) }, label + " bound",
            sourceLocation: sourceLocation)
    }

    @Test("Rows with repeated, differently cased, extra or reordered columns read the same both ways")
    func unusualRows() throws {
        let db = try makeDatabase()
        let queries = [
            "SELECT 'a1' AS a, 'b1' AS b, 1 AS c, 'a2' AS a, 2 AS c",
            "SELECT 'A' AS A, 'B' AS B, 3 AS C",
            "SELECT 4 AS c, NULL AS b, 'x' AS a, 'extra' AS d, 5 AS e",
            "SELECT 6 AS c, 'y' AS a",
            "SELECT 'z' AS a, 'b' AS b, '7' AS c",
            "SELECT 'a' AS \"a \", 'b' AS b, 8 AS c",
        ]
        for query in queries {
            for twice in [false, true] {
                let label = query + (twice ? ", second run" : "")
                expectSameOutcome(
                    outcome { try db.fetchAll(GABC.self, query: query) },
                    outcome { try fetchAllDecodable(db, GABC.self, query: query, decoder: Path.codableDecoder) },
                    label)
                expectSameOutcome(
                    outcome { try db.fetchAll(GCBA.self, query: query) },
                    outcome { try fetchAllDecodable(db, GCBA.self, query: query, decoder: Path.codableDecoder) },
                    label + " (c, b, a)")
            }
        }
        #expect(try db.fetchAll(GABC.self, query: queries[2]) == [GABC(a: "x", b: nil, c: 4)])
        #expect(try db.fetchAll(GCBA.self, query: queries[3]) == [GCBA(c: 6, b: nil, a: "y")])
    }

    @Test("Types read in turn from one statement each read their own columns")
    func sharedStatement() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE abc (id INTEGER PRIMARY KEY, c INTEGER, x, b TEXT, a TEXT)")
        try db.execute(
            query: "INSERT INTO abc (c, x, b, a) VALUES (1, 'x1', 'b1', 'a1'), (2, 'x2', NULL, 'a2'), "
                + "(3, 'x3', 'b3', 'a3')")
        let statement = try db.prepare(query: "SELECT * FROM abc ORDER BY id")
        var count = 0
        while let row = try statement.next() {
            count += 1
            let a = "a\(count)"
            let b: String? = count == 2 ? nil : "b\(count)"
            // Generated, Codable-only, generated with the keys in another order, the Codable path of a generated
            // type, a box. Each generated read follows reads that moved the statement's key slots.
            let reads: [String: () throws -> Bool] = [
                "GABC": { try RowDecoder().decode(GABC.self, from: row) == GABC(a: a, b: b, c: count) },
                "GPlainBA": { try RowDecoder().decode(GPlainBA.self, from: row) == GPlainBA(b: b, a: a) },
                "GCBA": { try RowDecoder().decode(GCBA.self, from: row) == GCBA(c: count, b: b, a: a) },
                "GABC Codable": {
                    try Path.codableDecoder.decode(GABC.self, from: row) == GABC(a: a, b: b, c: count)
                },
                "box": { try RowDecoder().decode(GOptionalBox<String>.self, from: row).v == nil },
                "GCBA Codable": {
                    try Path.codableDecoder.decode(GCBA.self, from: row) == GCBA(c: count, b: b, a: a)
                },
            ]
            var order = [
                "GABC", "GPlainBA", "GABC", "GCBA", "GABC Codable", "GCBA", "GABC", "box", "GABC", "GCBA Codable",
                "GABC", "GCBA", "GPlainBA", "GCBA", "GCBA",
            ]
            var generator = SplitMix64(seed: UInt64(count))
            order += reads.keys.sorted().flatMap { [$0, $0, $0] }.shuffled(using: &generator)
            for name in order {
                #expect(try reads[name]?() == true, "row \(count): \(name) after \(order.prefix(8))")
            }
        }
        // The cached statement of one query, read by several types in turn.
        let query = "SELECT * FROM abc ORDER BY id"
        let abc = [GABC(a: "a1", b: "b1", c: 1), GABC(a: "a2", b: nil, c: 2), GABC(a: "a3", b: "b3", c: 3)]
        let plain = abc.map { GPlainBA(b: $0.b, a: $0.a) }
        let cba = abc.map { GCBA(c: $0.c, b: $0.b, a: $0.a) }
        for _ in 0..<2 {
            #expect(try db.fetchAll(GABC.self, query: query) == abc)
            #expect(try db.fetchAll(GPlainBA.self, query: query) == plain)
            #expect(try db.fetchAll(GABC.self, query: query) == abc)
            #expect(try db.fetchAll(GCBA.self, query: query) == cba)
            #expect(try fetchAllDecodable(db, GABC.self, query: query, decoder: Path.codableDecoder) == abc)
            #expect(try db.fetchAll(GCBA.self, query: query) == cba)
            #expect(try drain(db.fetchCursor(GABC.self, query: query)) == abc)
            #expect(try db.fetchOne(GPlainBA.self, query: query) == plain.first)
            #expect(try db.fetchOne(GCBA.self, query: query) == cba.first)
        }
        #expect(count == 3)

        // One insert statement bound by several types in turn: each generated writer follows passes that moved the
        // statement's parameter slots.
        let insert = try db.prepare(query: "INSERT INTO abc (a, b, c) VALUES (:a, :b, :c)")
        let writes: [(GABC, (Statement) throws -> Void)] = [
            (GABC(a: "p", b: "q", c: 10), { try StatementEncoder().encode(GABC(a: "p", b: "q", c: 10), to: $0) }),
            (GABC(a: "r", b: nil, c: 11), { try StatementEncoder().encode(GCBA(c: 11, b: nil, a: "r"), to: $0) }),
            (GABC(a: "s", b: "t", c: 12), { try Path.codableEncoder.encode(GABC(a: "s", b: "t", c: 12), to: $0) }),
            (GABC(a: "w", b: "v", c: 14), { try StatementEncoder().encode(GCBA(c: 14, b: "v", a: "w"), to: $0) }),
            (
                GABC(a: "u", b: nil, c: 13),
                {
                    try StatementEncoder().encode(["c": "13", "b": nil, "a": "u"] as [String: String?], to: $0)
                }
            ),
            (GABC(a: "x", b: "y", c: 15), { try StatementEncoder().encode(GABC(a: "x", b: "y", c: 15), to: $0) }),
            (GABC(a: "z", b: nil, c: 16), { try Path.codableEncoder.encode(GCBA(c: 16, b: nil, a: "z"), to: $0) }),
            (GABC(a: "1", b: "2", c: 17), { try StatementEncoder().encode(GABC(a: "1", b: "2", c: 17), to: $0) }),
            (GABC(a: "3", b: "4", c: 18), { try StatementEncoder().encode(GCBA(c: 18, b: "4", a: "3"), to: $0) }),
        ]
        for (_, write) in writes {
            try write(insert)
            try insert.perform()
        }
        let inserted = try db.fetchAll(GABC.self, query: "SELECT a, b, c FROM abc WHERE id > 3 ORDER BY id")
        #expect(inserted == writes.map(\.0))
    }

    @Test("A Decimal with more digits than a REAL keeps is refused in a NUMERIC column both ways")
    func preciseDecimal() throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] {
            try db.execute(query: "CREATE TABLE dec (id INTEGER PRIMARY KEY, amount NUMERIC)")
        }
        let precise = try #require(Decimal(string: "1234567890.123456789", locale: Locale(identifier: "en_US_POSIX")))
        let generated = outcome { try generatedDB.insert(GDecimal(id: nil, amount: precise)) }
        let codable = outcome { try codableDB.insert(CodableTwin(GDecimal(id: nil, amount: precise))) }
        expectSameOutcome(generated, codable, "a precise Decimal", same: { _, _ in true })
        #expect(generated.failure != nil)
        // 15 digits are kept.
        var kept = GDecimal(id: nil, amount: Decimal(string: "12345.6789012345") ?? 0)
        var keptTwin = CodableTwin(kept)
        try generatedDB.insert(&kept)
        try codableDB.insert(&keptTwin)
        expectIdentical(kept, keptTwin.base)
        #expect(kept.amount == Decimal(string: "12345.6789012345"))
        expectSameStoredRows(try storedRows(generatedDB, "dec"), try storedRows(codableDB, "dec"), "kept Decimal")
    }
}

@Table("dec")
struct GDecimal: Codable, Equatable {
    var id: Int64?
    var amount: Decimal
}
