import Foundation
import StrataRecord
import Testing

@testable import Strata

/// The generated code of `@Table` types against their `Codable` conformance, on the very same types: same columns,
/// same stored values, same decoded values, same errors.
@Suite("Generated records: differential round trips and errors")
struct GeneratedDifferentialTests {
    // MARK: Round trips

    @Test(
        "Edge values bind the same stored values and read back equal both ways, under every strategy",
        arguments: RoundTripFuzzTests.strategies)
    func roundTrip(strategies: RoundTripStrategies) throws {
        let db = try makeDatabase()
        db.dateStrategy = strategies.date
        db.arrayStrategy = strategies.array
        db.uuidStrategy = strategies.uuid
        try db.execute(query: GAllKinds.createTable("all_kinds"))
        try db.execute(query: GAllKinds.createTable("all_kinds_codable"))
        var generator = SplitMix64(seed: 0xD1FF_0000 + strategies.seed)
        let values = (0..<150).map { GAllKinds.generate(id: Int64($0 + 1), using: &generator) }

        let generatedInsert = try db.prepare(query: GAllKinds.insertSQL("all_kinds"))
        let codableInsert = try db.prepare(query: GAllKinds.insertSQL("all_kinds_codable"))
        try db.transaction { _ in
            for value in values {
                try StatementEncoder().encode(value, to: generatedInsert)
                try generatedInsert.perform()
                try Path.codableEncoder.encode(value, to: codableInsert)
                try codableInsert.perform()
            }
        }
        let generatedRows = try storedRows(db, "all_kinds")
        let codableRows = try storedRows(db, "all_kinds_codable")
        #expect(generatedRows.count == values.count)
        #expect(generatedRows.first?.keys.sorted() == GAllKinds.columnNames.sorted())
        expectSameStoredRows(generatedRows, codableRows, "\(strategies.testDescription)")

        // Each stored row read both ways, from the same row of the same statement.
        let select = try db.prepare(query: "SELECT * FROM all_kinds ORDER BY id")
        var count = 0
        while let row = try select.next() {
            let generated = try RowDecoder().decode(GAllKinds.self, from: row)
            let codable = try Path.codableDecoder.decode(GAllKinds.self, from: row)
            let again = try RowDecoder().decode(GAllKinds.self, from: row)
            expectIdentical(generated, codable, "row \(count + 1)")
            expectIdentical(generated, again, "row \(count + 1) read twice")
            expectIdentical(
                generated.normalized, values[count].normalized, "row \(count + 1) against the value written")
            count += 1
        }
        #expect(count == values.count)

        // The specialized fetch against the Codable one, over the whole table.
        let query = "SELECT * FROM all_kinds ORDER BY id"
        let fetched = try db.fetchAll(GAllKinds.self, query: query)
        let fetchedCodable = try fetchAllDecodable(db, GAllKinds.self, query: query, decoder: Path.codableDecoder)
        #expect(fetched.count == values.count)
        expectIdentical(fetched, fetchedCodable)
        expectIdentical(
            fetched.map(\.normalized), values.map(\.normalized), "fetchAll against the values")
    }

    @Test("Decoder and encoder settings apply to both paths alike")
    func settings() throws {
        let db = try makeDatabase()
        try db.execute(query: GSnake.createTable)
        let value = GSnake(
            id: 1, createdAt: Date(timeIntervalSince1970: 1_700_000_000.123), displayName: "Ada", isActive: true,
            parentID: nil, homePage: URL(string: "https://example.com"))

        // An encoder overriding the date strategy and mapping keys to snake_case parameters.
        var encoder = StatementEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateStrategy = .unixMilliseconds
        let insert = """
            INSERT INTO snake_model (id, created_at, display_name, is_active, parent_id, home_page)
            VALUES (:id, :created_at, :display_name, :is_active, :parent_id, :home_page)
            """
        let generatedStatement = try db.prepare(query: insert)
        try encoder.encode(value, to: generatedStatement)
        try generatedStatement.perform()
        var second = value
        second.id = 2
        let codableStatement = try db.prepare(query: insert)
        try Path.encoder(encoder, codable: true).encode(second, to: codableStatement)
        try codableStatement.perform()
        let rows = try storedRows(db, "snake_model")
        #expect(rows.count == 2)
        #expect(rows.first?["created_at"] == .integer(1_700_000_000_123))
        expectSameStoredRows(
            rows.prefix(1).map { $0.filter { $0.key != "id" } }, rows.suffix(1).map { $0.filter { $0.key != "id" } },
            "snake_case parameters, dates in milliseconds")

        // A decoder overriding the date strategy: the INTEGER is milliseconds.
        var decoder = RowDecoder()
        decoder.dateStrategy = .unixMilliseconds
        let query = "SELECT * FROM snake_model ORDER BY id"
        let generated = outcome { try fetchAllDecodable(db, GSnake.self, query: query, decoder: decoder) }
        let codable = outcome {
            try fetchAllDecodable(db, GSnake.self, query: query, decoder: Path.decoder(decoder, codable: true))
        }
        expectSameOutcome(generated, codable, "date strategy override")
        #expect((try? generated.get())?.first == value)
        let specialized = outcome { try db.fetchAll(GSnake.self, query: query, decoder: decoder) }
        expectSameOutcome(specialized, codable, "date strategy override, specialized fetchAll")

        // A decoder whose key strategy was set explicitly wins over the model's: the keys then miss their columns.
        var plainKeys = RowDecoder()
        plainKeys.keyDecodingStrategy = .useDefaultKeys
        let mismatch = outcome { try fetchAllDecodable(db, GSnake.self, query: query, decoder: plainKeys) }
        let mismatchCodable = outcome {
            try fetchAllDecodable(db, GSnake.self, query: query, decoder: Path.decoder(plainKeys, codable: true))
        }
        expectSameOutcome(mismatch, mismatchCodable, "explicit default keys on a snake_case table")
        #expect(throws: DecodingError.self) { try mismatch.get() }

        // A custom key strategy.
        var custom = RowDecoder()
        custom.keyDecodingStrategy = .custom { key in key == "displayName" ? "display_name" : key }
        let customQuery = "SELECT id, created_at AS createdAt, display_name, 0 AS isActive FROM snake_model"
        let customGenerated = outcome {
            try fetchAllDecodable(db, GSnake.self, query: customQuery, decoder: custom)
        }
        let customCodable = outcome {
            try fetchAllDecodable(db, GSnake.self, query: customQuery, decoder: Path.decoder(custom, codable: true))
        }
        expectSameOutcome(customGenerated, customCodable, "custom key strategy")
        #expect((try? customGenerated.get())?.map(\.displayName) == ["Ada", "Ada"])
    }

    @Test("Custom CodingKeys: the renamed key, the left-out property and the let are the Codable conformance's")
    func customCodingKeys() throws {
        #expect(GRenamed.recordKeys == ["id", "title_text", "version", "note"])
        #expect(GRenamed.columns.title.name == "title_text")
        #expect(GSnake.columns.createdAt.name == "created_at")
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE renamed (id INTEGER PRIMARY KEY, title_text, note, version)")
        try db.execute(query: "CREATE TABLE renamed_codable (id INTEGER PRIMARY KEY, title_text, note, version)")
        let values = [
            GRenamed(id: 1, title: "one", note: nil, cache: 99),
            GRenamed(id: 2, title: "", note: "n", cache: -1),
        ]
        for value in values {
            for (table, encoder) in [("renamed", StatementEncoder()), ("renamed_codable", Path.codableEncoder)] {
                let sql =
                    "INSERT INTO \(table) (id, title_text, note, version) VALUES (:id, :title_text, :note, :version)"
                let statement = try db.prepare(query: sql)
                try encoder.encode(value, to: statement)
                try statement.perform()
            }
        }
        let stored = try storedRows(db, "renamed")
        expectSameStoredRows(stored, try storedRows(db, "renamed_codable"), "custom CodingKeys")
        #expect(stored.map { $0["version"] } == [.integer(3), .integer(3)])
        #expect(stored.map { $0["title_text"] } == [.text("one"), .text("")])

        // The let is never decoded, the left-out property keeps its default.
        try db.execute(query: "UPDATE renamed SET version = 42")
        let query = "SELECT * FROM renamed ORDER BY id"
        let generated = try db.fetchAll(GRenamed.self, query: query)
        let codable = try fetchAllDecodable(db, GRenamed.self, query: query, decoder: Path.codableDecoder)
        expectIdentical(generated, codable)
        #expect(generated.map(\.version) == [3, 3])
        #expect(generated.map(\.cache) == [7, 7])
        #expect(generated.map(\.title) == ["one", ""])
        #expect(generated.map(\.note) == [nil, "n"])
    }

    // MARK: Decoding errors

    @Test("A bad row throws the same error both ways", arguments: BadRow.all)
    func badRow(_ bad: BadRow) throws {
        let db = try makeDatabase()
        let sql = bad.sql
        let statement = try db.prepare(query: sql)
        let row = try #require(try statement.next())
        let generated = outcome { try RowDecoder().decode(GErrModel.self, from: row) }
        let codable = outcome { try Path.codableDecoder.decode(GErrModel.self, from: row) }
        expectSameOutcome(generated, codable, bad.name)
        switch (generated, bad.expected) {
        case (.success(let value), .value(let expected)):
            #expect(value == expected, "\(bad.name): \(propertyDifferences(value, expected))")
        case (.failure(let error), .error(let kind, let key)):
            let shape = ErrorShape(error)
            #expect(shape.kind == kind, "\(bad.name): \(shape)")
            #expect(shape.codingPath.last == key || shape.subject == key, "\(bad.name): \(shape)")
        case (.success(let value), .error):
            Issue.record("\(bad.name): expected an error, got \(value)")
        case (.failure(let error), .value):
            Issue.record("\(bad.name): expected a value, got \(ErrorShape(error))")
        }

        // Through the fetches: the specialized one, the generic one, a cursor and fetchOne.
        let fetched = outcome { try db.fetchAll(GErrModel.self, query: sql) }
        let fetchedCodable = outcome {
            try fetchAllDecodable(db, GErrModel.self, query: sql, decoder: Path.codableDecoder)
        }
        expectSameOutcome(fetched, fetchedCodable, bad.name + " (fetchAll)")
        let cursor = outcome { try drain(db.fetchCursor(GErrModel.self, query: sql)) }
        let cursorCodable = outcome {
            try drain(db.fetchCursor(GErrModel.self, query: sql, decoder: Path.codableDecoder))
        }
        expectSameOutcome(cursor, cursorCodable, bad.name + " (fetchCursor)")
        let one = outcome { try db.fetchOne(GErrModel.self, query: sql) }
        let oneCodable = outcome { try db.fetchOne(GErrModel.self, query: sql, decoder: Path.codableDecoder) }
        expectSameOutcome(one, oneCodable, bad.name + " (fetchOne)")
    }

    @Test("A missing column of a snake_case or renamed key throws the same error both ways")
    func missingMappedColumns() throws {
        let db = try makeDatabase()
        let snakeSQL = "SELECT 1 AS id, 'Ada' AS display_name, 1 AS is_active"
        let snake = outcome { try db.fetchAll(GSnake.self, query: snakeSQL) }
        let snakeCodable = outcome {
            try fetchAllDecodable(db, GSnake.self, query: snakeSQL, decoder: Path.codableDecoder)
        }
        expectSameOutcome(snake, snakeCodable, "missing created_at")
        let snakeError = ErrorShape(try #require(snake.failure))
        #expect(snakeError.kind == "DecodingError.keyNotFound")
        #expect(snakeError.subject == "createdAt")
        #expect(snakeError.debugDescription.contains("\"created_at\""), "\(snakeError)")

        let renamedSQL = "SELECT 1 AS id, 'x' AS title"
        let renamed = outcome { try db.fetchAll(GRenamed.self, query: renamedSQL) }
        let renamedCodable = outcome {
            try fetchAllDecodable(db, GRenamed.self, query: renamedSQL, decoder: Path.codableDecoder)
        }
        expectSameOutcome(renamed, renamedCodable, "missing title_text")
        #expect(ErrorShape(try #require(renamed.failure)).subject == "title_text")

        // The wrong type in a snake_case column names the column.
        let wrongSQL = "SELECT 1 AS id, x'00' AS created_at, 'Ada' AS display_name, 1 AS is_active"
        let wrong = outcome { try db.fetchAll(GSnake.self, query: wrongSQL) }
        let wrongCodable = outcome {
            try fetchAllDecodable(db, GSnake.self, query: wrongSQL, decoder: Path.codableDecoder)
        }
        expectSameOutcome(wrong, wrongCodable, "BLOB created_at")
        #expect(ErrorShape(try #require(wrong.failure)).codingPath == ["createdAt"])
    }

    // MARK: Encoding errors

    @Test("A value that cannot be bound throws the same error both ways", arguments: BadValue.all)
    func badValue(_ bad: BadValue) throws {
        let db = try makeDatabase()
        try db.execute(query: GErrModel.createTable("err_model"))
        let generated = outcome { try StatementEncoder().encode(bad.value, to: try db.prepare(query: bad.sql)) }
        let codable = outcome { try Path.codableEncoder.encode(bad.value, to: try db.prepare(query: bad.sql)) }
        expectSameOutcome(generated, codable, bad.name, same: { _, _ in true })
        let error = try #require(generated.failure, "\(bad.name): expected an error")
        let shape = ErrorShape(error)
        #expect(shape.kind == "EncodingError.invalidValue", "\(bad.name): \(shape)")
        #expect(shape.codingPath == bad.codingPath, "\(bad.name): \(shape)")
        #expect(shape.debugDescription.contains(bad.message), "\(bad.name): \(shape)")

        // A record operation throws the same as the generated encoder.
        guard bad.sql == BadValue.insertAll else { return }
        let inserted = outcome { try db.insert(bad.value) }
        let insertedCodable = outcome { try db.insert(CodableTwin(bad.value)) }
        expectSameOutcome(inserted, insertedCodable, bad.name + " (insert)", same: { _, _ in true })
        #expect(inserted.failure != nil)
        #expect(try db.fetchAll(GErrModel.self).isEmpty)
    }

    @Test("Keys without a parameter are skipped both ways, and bind the same values")
    func skippedKeys() throws {
        let db = try makeDatabase()
        try db.execute(query: GErrModel.createTable("err_model"))
        try db.execute(query: GErrModel.createTable("err_codable"))
        var value = GErrModel.sample
        value.optPoint = GPoint(x: -0.0, y: 1e300, label: "o", tags: [])
        // Most keys have no parameter; `:count` appears twice.
        func sql(_ table: String) -> String {
            """
            INSERT INTO \(table) (id, count, name, tags, point, optPoint, "when", optCount)
            VALUES (:id, :count, :name, :tags, :point, :optPoint, :when, :count)
            """
        }
        let generated = try db.prepare(query: sql("err_model"))
        let codable = try db.prepare(query: sql("err_codable"))
        for id in [Int64(1), 2] {
            value.id = id
            try StatementEncoder().encode(value, to: generated)
            try generated.perform()
            try Path.codableEncoder.encode(value, to: codable)
            try codable.perform()
        }
        let rows = try storedRows(db, "err_model")
        expectSameStoredRows(rows, try storedRows(db, "err_codable"), "skipped keys")
        #expect(rows.map { $0["id"] } == [.integer(1), .integer(2)])
        #expect(rows.first?["count"] == .integer(2))
        #expect(rows.first?["optCount"] == .integer(2))
        #expect(rows.first?["ratio"] == .null)
        #expect(rows.first?["tags"] == .text("[\"t\"]"))
        #expect(rows.first?["when"] == .text("2023-11-14 22:13:20.500"))
    }
}

// MARK: Cases

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A row that `GErrModel` may not read: one column of a valid row replaced or left out.
struct BadRow: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case value(GErrModel)
        /// The error's case and the key it names.
        case error(String, String)
    }

    let name: String
    /// The column's SQL, nil to leave the column out.
    let column: String
    let replacement: String?
    let expected: Expected

    var testDescription: String { name }

    static let base: [(String, String)] = [
        ("id", "1"), ("count", "2"), ("name", "'n'"), ("ratio", "1.5"), ("float", "0.25"), ("tiny", "3"),
        ("big", "4"), ("flag", "1"), ("mood", "'happy'"), ("level", "100"), ("when", "'2023-11-14 22:13:20.500'"),
        ("uuid", "x'E621E1F8C36C495A93FC0C247A3E6E5F'"), ("link", "'https://example.com/x'"), ("amount", "'1.25'"),
        ("point", #"'{"x":1,"label":"p","tags":["a"]}'"#), ("tags", #"'["t"]'"#), ("optCount", "NULL"),
        ("optRatio", "2.5"), ("optFloat", "NULL"), ("optPoint", "NULL"),
    ]

    var sql: String {
        let columns = Self.base.compactMap { key, value -> String? in
            if key == column { return replacement.map { "\($0) AS \"\(key)\"" } }
            return "\(value) AS \"\(key)\""
        }
        return "SELECT " + columns.joined(separator: ", ")
    }

    static func error(_ name: String, _ column: String, _ sql: String?, _ kind: String) -> BadRow {
        BadRow(name: name, column: column, replacement: sql, expected: .error("DecodingError." + kind, column))
    }

    static func value(_ name: String, _ column: String, _ sql: String?, _ change: (inout GErrModel) -> Void)
        -> BadRow
    {
        var value = GErrModel.sample
        change(&value)
        return BadRow(name: name, column: column, replacement: sql, expected: .value(value))
    }

    static let all: [BadRow] = [
        value("a valid row", "", nil) { _ in },
        value("a missing optional column", "optRatio", nil) { $0.optRatio = nil },
        value("a missing optional key", "id", nil) { $0.id = nil },
        value("a REAL with no fraction into Int", "count", "2.0") { _ in },
        value("an INTEGER into Double", "ratio", "3") { $0.ratio = 3 },
        value("an INTEGER date", "when", "1700000000") { $0.when = Date(timeIntervalSince1970: 1_700_000_000) },
        value("a TEXT UUID", "uuid", "'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'") { _ in },
        value("a JSON optional point", "optPoint", #"'{"x":2,"y":3,"label":"","tags":[]}'"#) {
            $0.optPoint = GPoint(x: 2, y: 3, label: "", tags: [])
        },
        error("a missing column", "count", nil, "keyNotFound"),
        error("a missing String column", "name", nil, "keyNotFound"),
        error("a missing nested column", "point", nil, "keyNotFound"),
        error("a missing enum column", "mood", nil, "keyNotFound"),
        error("NULL into Int", "count", "NULL", "valueNotFound"),
        error("NULL into String", "name", "NULL", "valueNotFound"),
        error("NULL into Double", "ratio", "NULL", "valueNotFound"),
        error("NULL into Bool", "flag", "NULL", "valueNotFound"),
        error("NULL into a String enum", "mood", "NULL", "valueNotFound"),
        error("NULL into an Int enum", "level", "NULL", "valueNotFound"),
        error("NULL into Date", "when", "NULL", "valueNotFound"),
        error("NULL into UUID", "uuid", "NULL", "valueNotFound"),
        error("NULL into URL", "link", "NULL", "valueNotFound"),
        error("NULL into Decimal", "amount", "NULL", "valueNotFound"),
        error("NULL into a nested struct", "point", "NULL", "valueNotFound"),
        error("NULL into an array", "tags", "NULL", "valueNotFound"),
        error("TEXT into Int", "count", "'abc'", "typeMismatch"),
        error("number-like TEXT into Int", "count", "'42'", "typeMismatch"),
        error("TEXT into an optional Int", "optCount", "'abc'", "typeMismatch"),
        error("TEXT into an optional key", "id", "'abc'", "typeMismatch"),
        error("BLOB into Int", "count", "x'01'", "typeMismatch"),
        error("BLOB into String", "name", "x'6e'", "typeMismatch"),
        error("TEXT into Double", "ratio", "'1.5'", "typeMismatch"),
        error("TEXT into an optional Double", "optRatio", "'x'", "typeMismatch"),
        error("a REAL with a fraction into Int", "count", "1.5", "typeMismatch"),
        error("an out-of-range Int8", "tiny", "300", "dataCorrupted"),
        error("a negative UInt64", "big", "-1", "dataCorrupted"),
        error("an Int out of range as REAL", "count", "1e19", "dataCorrupted"),
        error("a Float out of range", "float", "1e300", "dataCorrupted"),
        error("an out-of-range optional Float", "optFloat", "1e300", "dataCorrupted"),
        value("2 into Bool", "flag", "2") { $0.flag = true },
        error("TEXT into Bool", "flag", "'true'", "typeMismatch"),
        error("an unknown String raw value", "mood", "'angry'", "dataCorrupted"),
        error("an unknown Int raw value", "level", "7", "dataCorrupted"),
        error("TEXT into an Int enum", "level", "'100'", "typeMismatch"),
        error("an invalid date", "when", "'yesterday'", "dataCorrupted"),
        error("BLOB into Date", "when", "x'00'", "typeMismatch"),
        error("an invalid UUID", "uuid", "'xyz'", "dataCorrupted"),
        error("a 3-byte UUID", "uuid", "x'010203'", "dataCorrupted"),
        error("an INTEGER URL", "link", "5", "typeMismatch"),
        error("an empty URL", "link", "''", "dataCorrupted"),
        error("an invalid Decimal", "amount", "'1.2.3'", "dataCorrupted"),
        error("invalid JSON in a nested column", "point", "'{'", "dataCorrupted"),
        error("JSON of the wrong shape", "point", #"'{"x":"a","label":"p","tags":[]}'"#, "dataCorrupted"),
        error("a JSON array for a struct", "point", "'[1]'", "dataCorrupted"),
        error("JSON missing a key", "point", #"'{"x":1}'"#, "dataCorrupted"),
        error("an INTEGER for a nested struct", "point", "5", "typeMismatch"),
        error("invalid JSON in an array column", "tags", "'[\"t\"'", "dataCorrupted"),
        error("invalid JSON in an optional nested column", "optPoint", "'not json'", "dataCorrupted"),
    ]
}

/// A value that cannot be bound, and the statement it is bound to.
struct BadValue: Sendable, CustomTestStringConvertible {
    let name: String
    let value: GErrModel
    let sql: String
    /// The coding path of the error.
    let codingPath: [String]
    /// Words the error's description holds.
    let message: String

    var testDescription: String { name }

    static let insertAll: String = {
        let keys = BadRow.base.map(\.0)
        let columns = keys.map { "\"\($0)\"" }.joined(separator: ", ")
        return "INSERT INTO err_model (\(columns)) VALUES (\(keys.map { ":" + $0 }.joined(separator: ", ")))"
    }()

    static func make(
        _ name: String, sql: String = insertAll, codingPath: [String], message: String,
        _ change: (inout GErrModel) -> Void
    ) -> BadValue {
        var value = GErrModel.sample
        change(&value)
        return BadValue(name: name, value: value, sql: sql, codingPath: codingPath, message: message)
    }

    static let all: [BadValue] = [
        make("a NaN Double", codingPath: ["ratio"], message: "NaN") { $0.ratio = .nan },
        make("a negative NaN Double", codingPath: ["ratio"], message: "NaN") { $0.ratio = -.nan },
        make("a NaN Float", codingPath: ["float"], message: "NaN") { $0.float = .nan },
        make("a NaN optional Double", codingPath: ["optRatio"], message: "NaN") { $0.optRatio = .nan },
        make("a NaN optional Float", codingPath: ["optFloat"], message: "NaN") { $0.optFloat = .signalingNaN },
        make("a UInt64 above Int64.max", codingPath: ["big"], message: "big") { $0.big = .max },
        make("an infinite Double in JSON", codingPath: ["point"], message: "could not encode GPoint as json") {
            $0.point.x = .infinity
        },
        make("a NaN in optional JSON", codingPath: ["optPoint"], message: "could not encode GPoint as json") {
            $0.optPoint = GPoint(x: 1, y: .nan, label: "", tags: [])
        },
        make(
            "a parameter no key fills",
            sql: "INSERT INTO err_model (id, count, name) VALUES (:id, :count, :extra)", codingPath: [],
            message: "GErrModel has no value for parameter :extra of `INSERT INTO err_model"
        ) { _ in },
        make(
            "two parameters no key fills",
            sql: "INSERT INTO err_model (id, count, name) VALUES (:id, :other, :extra)", codingPath: [],
            message: "GErrModel has no value for parameters :other, :extra"
        ) { _ in },
    ]
}
