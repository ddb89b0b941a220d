// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import StrataCore
import Testing

// The Swift blocks of docs/Backends.md, run as written (see DocSnippetSupport.swift).

@Test("Backends.md: a column reader decodes through StrataCore's row decoder") func backendsColumnReader() throws {
    // snippet: docs/Backends.md 1
    final class ArrayRow: ColumnReader {
        let columnNames: [String]
        var values: [DatabaseValue]
        let keys: RowDecoder.KeyDecodingStrategy

        init(columnNames: [String], values: [DatabaseValue], keys: RowDecoder.KeyDecodingStrategy) {
            self.columnNames = columnNames
            self.values = values
            self.keys = keys
        }

        var columnCount: Int { columnNames.count }
        func beginRow() {}
        func columnIndex(forKey key: String) -> Int? { columnNames.firstIndex(of: keys.columnName(for: key)) }
        func isNull(at index: Int) -> Bool { values[index] == .null }
        func decodeBool(at index: Int) throws -> Bool { try Bool(databaseValue: values[index]) }
        func decodeString(at index: Int) throws -> String { try String(databaseValue: values[index]) }
        func decodeDouble(at index: Int) throws -> Double { try Double(databaseValue: values[index]) }
        func decodeFloat(at index: Int) throws -> Float { try Float(databaseValue: values[index]) }
        func storedInteger(at index: Int) -> Int64? {
            if case .integer(let value) = values[index] { value } else { nil }
        }
        func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I {
            guard let value = storedInteger(at: index), let exact = I(exactly: value) else {
                throw DatabaseError(code: .typeMismatch, message: "could not decode \(I.self)")
            }
            return exact
        }
        func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, otherwise: (Int) throws -> T) throws -> T {
            guard let convertible = T.self as? any DatabaseValueConvertible.Type,
                let value = try convertible.init(databaseValue: values[index]) as? T
            else { return try otherwise(index) }
            return value
        }
        func decodeNested<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
            try JSONDecoder().decode(T.self, from: Data(String(databaseValue: values[index]).utf8))
        }
    }

    struct Reading: Decodable, Equatable {
        enum Unit: String, Decodable { case celsius, kelvin }
        var sensorId: Int64
        var value: Double
        var unit: Unit
        var labels: [String]
        var note: String?
    }

    let decoder = {
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
    let row = ArrayRow(
        columnNames: ["sensor_id", "value", "unit", "labels", "note"],
        values: [.integer(7), .real(21.5), .text("celsius"), .text(#"["roof","north"]"#), .null],
        keys: decoder.keyDecodingStrategy(for: Reading.self))
    let reading = try decoder.decode(Reading.self, from: row)
    print(reading)   // Reading(sensorId: 7, value: 21.5, unit: celsius, labels: ["roof", "north"], note: nil)
    // end snippet
    #expect(reading == Reading(sensorId: 7, value: 21.5, unit: .celsius, labels: ["roof", "north"], note: nil))
    // The reader's errors come back located at the column.
    row.values[1] = .text("warm")
    #expect {
        try decoder.decode(Reading.self, from: row)
    } throws: { error in
        guard case DecodingError.typeMismatch(_, let context) = error,
            let underlying = context.underlyingError as? DatabaseError
        else { return false }
        return underlying.column == "value" && underlying.columnIndex == 1
    }
}

@Test("Backends.md: a parameter binder binds through StrataCore's parameter encoder") func backendsParameterBinder() throws {
    // snippet: docs/Backends.md 2
    final class ArrayParameters: ParameterBinder {
        let names: [String]
        var values: [DatabaseValue]
        let keys: StatementEncoder.KeyEncodingStrategy

        init(names: [String], keys: StatementEncoder.KeyEncodingStrategy) {
            self.names = names
            self.values = Array(repeating: .null, count: names.count)
            self.keys = keys
        }

        var parameterCount: Int { names.count }
        func parameterIndex(forKey key: String) -> Int? {
            names.firstIndex(of: keys.parameterName(for: key)).map { $0 + 1 }
        }
        func parameterName(at index: Int) -> String { ":" + names[index - 1] }
        func bindNull(at index: Int) throws { values[index - 1] = .null }
        func bindBool(_ value: Bool, at index: Int) throws { values[index - 1] = .integer(value ? 1 : 0) }
        func bindInteger(_ value: Int64, at index: Int) throws { values[index - 1] = .integer(value) }
        func bindDouble(_ value: Double, at index: Int) throws { values[index - 1] = .real(value) }
        func bindFloat(_ value: Float, at index: Int) throws { values[index - 1] = .real(Double(value)) }
        func bindString(_ value: String, at index: Int) throws { values[index - 1] = .text(value) }
        func bindValue<T: Encodable>(_ value: T, at index: Int, otherwise: (Int) throws -> Void) throws {
            guard let convertible = value as? any DatabaseValueConvertible else { return try otherwise(index) }
            values[index - 1] = convertible.databaseValue
        }
        func bindNested<T: Encodable>(_ value: T, at index: Int) throws {
            values[index - 1] = .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        }
    }

    struct Reading: Encodable {
        enum Unit: String, Encodable { case celsius, kelvin }
        var sensorId: Int64
        var value: Double
        var unit: Unit
        var labels: [String]
        var note: String?
    }

    var encoder = StatementEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let parameters = ArrayParameters(names: ["sensor_id", "value", "unit", "labels", "note"], keys: .convertToSnakeCase)
    try encoder.encode(
        Reading(sensorId: 7, value: 21.5, unit: .celsius, labels: ["roof"], note: nil), to: parameters)
    print(parameters.values)   // [7, 21.5, 'celsius', '["roof"]', NULL]
    // end snippet
    #expect(parameters.values == [7, 21.5, "celsius", #"["roof"]"#, .null])
    // A parameter no key binds, a key of no parameter: an EncodingError naming the parameter; the key is skipped.
    struct Partial: Encodable {
        var sensorId: Int64
        var other: Int
    }
    let partial = ArrayParameters(names: ["sensor_id", "unit"], keys: .convertToSnakeCase)
    #expect {
        try encoder.encode(Partial(sensorId: 1, other: 2), to: partial)
    } throws: { error in
        "\(error)".contains("Partial has no value for parameter :unit")
    }
    #expect(partial.values == [1, .null])
}

@Test("Backends.md: a dialect spells a request's SQL") func backendsDialect() throws {
    // snippet: docs/Backends.md 3
    struct NumberedSQLite: SQLDialect {
        let sqlite = SQLiteDialect()
        func placeholder(_ index: Int) -> String { "?\(index)" }
        func namedPlaceholder(_ name: String) -> String { ":" + name }
        func upsertClause(conflictColumn: String, columns: [String]) -> String {
            sqlite.upsertClause(conflictColumn: conflictColumn, columns: columns)
        }
        var returningAllColumns: String { " RETURNING *" }
        var syntax: SQLSyntax { .sqlite }
        var like: (operator: String, collation: String?, defaultEscape: String?) { ("LIKE", nil, nil) }
        func collate(_ collation: SQLCollation) -> String? { sqlite.collate(collation) }
        func nullsOrder(descending: Bool) -> String { "" }
        // statementText(_:positionalValues:) is the rendered text as it is, unless a dialect says otherwise.
    }

    struct Reading: Model {
        static let tableName = "reading"
        var id: Int64?
        var sensorId: Int64
        var value: Double
    }

    let recent = Reading.filter(Column("sensorId") == 7).order(Column("id").desc).limit(10)
    print(recent.sql(for: NumberedSQLite()))
    // SELECT "reading".* FROM "reading" WHERE "reading"."sensorId" = ?1 ORDER BY "reading"."id" DESC LIMIT ?2
    // end snippet
    #expect(
        recent.sql(for: NumberedSQLite())
            == #"SELECT "reading".* FROM "reading" WHERE "reading"."sensorId" = ?1 ORDER BY "reading"."id" DESC LIMIT ?2"#)
    // SQLite reads the numbered text and returns the request's rows.
    let db = try Database()
    try db.execute(query: "CREATE TABLE reading (id INTEGER PRIMARY KEY, sensorId INTEGER, value REAL)")
    try db.execute(query: "INSERT INTO reading (sensorId, value) VALUES (7, 1.5), (8, 2.5), (7, 3.5)")
    let statement = try db.prepare(query: recent.sql(for: NumberedSQLite()))
    try statement.bind([7, 10])
    var ids: [Int64] = []
    while let row = try statement.next() { ids.append(try row[0]) }
    #expect(ids == [3, 1])
    #expect(try db.fetchAll(recent).map(\.id) == [3, 1])
}

@Test("Backends.md: requests, SQL values and records render as text and values") func backendsRenderedSQL() throws {
    // snippet: docs/Backends.md 4
    struct Reading: Model {
        static let tableName = "reading"
        var id: Int64?
        var sensorId: Int64
        var value: Double
    }

    let warm = try Reading.filter(Column("value") > 30.0).limit(5).rendered(for: SQLiteDialect())
    print(warm.sql)      // SELECT "reading".* FROM "reading" WHERE "reading"."value" > ? LIMIT ?
    print(warm.values)   // [30.0, 5]

    let sensor: Int64 = 7
    let latest = try SQL("SELECT max(id) FROM \(identifier: "reading") WHERE sensorId = \(sensor)")
        .rendered(for: SQLiteDialect())
    print(latest.sql)    // SELECT max(id) FROM "reading" WHERE sensorId = ?
    print(latest.values) // [7]

    let record = try RecordSQL(for: Reading(id: nil, sensorId: 7, value: 21.5), dialect: SQLiteDialect())
    print(record.insert) // INSERT INTO "reading" ("id", "sensorId", "value") VALUES (:id, :sensorId, :value)
    print(record.update) // UPDATE "reading" SET "sensorId" = :sensorId, "value" = :value WHERE "id" = :id
    // end snippet
    #expect(warm.sql == #"SELECT "reading".* FROM "reading" WHERE "reading"."value" > ? LIMIT ?"#)
    #expect(warm.values.map(\.databaseValue) == [.real(30), .integer(5)])
    #expect(latest.sql == #"SELECT max(id) FROM "reading" WHERE sensorId = ?"#)
    #expect(latest.values.map(\.databaseValue) == [.integer(7)])
    #expect(record.insert == #"INSERT INTO "reading" ("id", "sensorId", "value") VALUES (:id, :sensorId, :value)"#)
    #expect(record.update == #"UPDATE "reading" SET "sensorId" = :sensorId, "value" = :value WHERE "id" = :id"#)

    // SQLite runs them as rendered: the record's insert bound by name, the request's SELECT by position.
    let db = try Database()
    try db.execute(query: "CREATE TABLE reading (id INTEGER PRIMARY KEY, sensorId INTEGER, value REAL)")
    for value in [21.5, 31.5, 35.0] {
        try db.execute(query: record.insert, parameters: ["id": nil, "sensorId": sensor, "value": value])
    }
    let select = try db.prepare(query: warm.sql)
    try select.bind(warm.values)
    var ids: [Int64] = []
    while let row = try select.next() { ids.append(try row[0]) }
    #expect(ids == [2, 3])
    let newest = try db.prepare(query: latest.sql)
    try newest.bind(latest.values)
    #expect(try newest.next()?[0] == Int64(3))
}

@Test("Rendering that cannot run throws a DatabaseError naming it, before anything runs")
func renderedSQLFailures() throws {
    struct Reading: Model {
        static let tableName = "reading"
        var id: Int64?
    }
    #expect {
        try Reading.all().limit(-1).rendered(for: SQLiteDialect())
    } throws: { error in
        (error as? DatabaseError)?.code == .invalidArgument && (error as? DatabaseError)?.sql != nil
    }
    let mood = "happy"
    #expect {
        try SQL("SELECT * FROM note WHERE mood = '\(mood)'").rendered(for: SQLiteDialect())
    } throws: { error in
        (error as? DatabaseError)?.sql == "SELECT * FROM note WHERE mood = '?'"
            && !"\(error)".contains("happy")
    }
    #expect {
        try RecordSQL(for: Reading.self, keys: ["value"], dialect: SQLiteDialect())
    } throws: { error in
        (error as? DatabaseError)?.code == .invalidArgument && "\(error)".contains("primary key")
    }
}
