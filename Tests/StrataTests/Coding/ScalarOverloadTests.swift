import Foundation
import Testing

@testable import Strata

/// A type both `Decodable` and `DatabaseValueConvertible` reads a one-column row as a scalar, through its
/// conversion, in every fetch and stream spelling: the overloads that were written once for such types now resolve to
/// the storable-value forms, and must still do so.
@Suite struct ScalarOverloadTests {
    /// Says which way it was read: `value:` through its conversion, `decoder:` through its `Decodable` init.
    struct Tag: Decodable, DatabaseValueConvertible, Equatable, Sendable {
        var source: String

        init(source: String) { self.source = source }

        init(from decoder: any Decoder) throws {
            source = "decoder:" + (try decoder.singleValueContainer().decode(String.self))
        }

        var databaseValue: DatabaseValue { .text(source) }

        init(databaseValue: DatabaseValue) throws {
            source = "value:" + (try String(databaseValue: databaseValue))
        }
    }

    /// Storable and not `Decodable`.
    struct Code: DatabaseValueConvertible, Equatable, Sendable {
        var text: String

        init(text: String) { self.text = text }

        var databaseValue: DatabaseValue { .text(text) }

        init(databaseValue: DatabaseValue) throws { text = try String(databaseValue: databaseValue) }
    }

    struct Label: Model, Equatable, Sendable {
        static let tableName = "label"
        var id: Int64?
        var name: String
    }

    struct Name: Decodable, Equatable, Sendable {
        var name: String
    }

    struct Filter: Encodable {
        var name: String
    }

    static let sql: SQL = "SELECT name FROM label ORDER BY id"
    static let query = "SELECT name FROM label WHERE name = :name"
    static let byValue = [Tag(source: "value:a")]

    private func makeLabels(_ db: Database) throws {
        try db.execute(query: "CREATE TABLE label (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(query: "INSERT INTO label (name) VALUES ('a')")
    }

    private func all<T>(_ cursor: FetchCursor<T>) throws -> [T] {
        var values: [T] = []
        while let value = try cursor.next() { values.append(value) }
        return values
    }

    private func generic<T: Decodable & DatabaseValueConvertible>(_ type: T.Type, _ db: Database) throws -> [T] {
        try db.fetchAll(T.self, query: Self.query, parameters: ["name": "a"])
    }

    @Test func databaseFetchesReadThroughTheConversion() throws {
        let db = try makeDatabase()
        try makeLabels(db)
        let dictionary: [String: (any DatabaseValueConvertible)?] = ["name": "a"]
        let request = Label.select(Column("name"))

        #expect(try db.fetchAll(Tag.self, Self.sql) == Self.byValue)
        #expect(try db.fetchOne(Tag.self, Self.sql) == Self.byValue.first)
        #expect(try all(db.fetchCursor(Tag.self, Self.sql)) == Self.byValue)

        #expect(try db.fetchAll(Tag.self, query: "SELECT name FROM label") == Self.byValue)
        #expect(try db.fetchAll(Tag.self, query: Self.query, parameters: ["name": "a"]) == Self.byValue)
        #expect(try db.fetchAll(Tag.self, query: Self.query, parameters: Filter(name: "a")) == Self.byValue)
        #expect(try db.fetchAll(Tag.self, query: Self.query, parameters: dictionary) == Self.byValue)
        #expect(try db.fetchOne(Tag.self, query: Self.query, parameters: ["name": "a"]) == Self.byValue.first)
        #expect(try db.fetchOne(Tag.self, query: Self.query, parameters: Filter(name: "a")) == Self.byValue.first)
        #expect(try db.fetchOne(Tag.self, query: Self.query, parameters: dictionary) == Self.byValue.first)
        #expect(try all(db.fetchCursor(Tag.self, query: Self.query, parameters: ["name": "a"])) == Self.byValue)

        #expect(try db.fetchAll(Tag.self, request) == Self.byValue)
        #expect(try db.fetchOne(Tag.self, request) == Self.byValue.first)

        #expect(try generic(Tag.self, db) == Self.byValue)
    }

    /// The forms with a `decoder:` are the `Decodable` ones; the decoder reads a storable type through its conversion
    /// too.
    @Test func aDecoderAskedForGivesTheSameValue() throws {
        let db = try makeDatabase()
        try makeLabels(db)
        let decoded = Self.byValue
        #expect(try db.fetchAll(Tag.self, query: "SELECT name FROM label", decoder: RowDecoder()) == decoded)
        #expect(try db.fetchOne(Tag.self, query: "SELECT name FROM label", decoder: RowDecoder()) == decoded.first)
        #expect(try db.fetchAll(Tag.self, Label.select(Column("name")), decoder: RowDecoder()) == decoded)
        #expect(try db.fetchAll(Tag.self, Self.sql, decoder: RowDecoder()) == decoded)
    }

    @Test func storableOnlyAndDecodableOnlyTypesKeepTheirForms() throws {
        let db = try makeDatabase()
        try makeLabels(db)
        #expect(try db.fetchAll(Code.self, Self.sql) == [Code(text: "a")])
        #expect(try db.fetchAll(Code.self, query: Self.query, parameters: ["name": "a"]) == [Code(text: "a")])
        #expect(try db.fetchOne(Code.self, Label.select(Column("name"))) == Code(text: "a"))
        #expect(
            try all(db.fetchCursor(Code.self, query: Self.query, parameters: Filter(name: "a"))) == [Code(text: "a")])
        #expect(try db.fetchAll(Name.self, query: Self.query, parameters: ["name": "a"]) == [Name(name: "a")])
        #expect(try db.fetchOne(Name.self, Label.select(Column("name"))) == Name(name: "a"))
        #expect(try all(db.fetchCursor(Name.self, Self.sql)) == [Name(name: "a")])
    }

    private func collect<T>(_ stream: RowStream<T>) async throws -> [T] {
        var values: [T] = []
        for try await value in stream { values.append(value) }
        return values
    }

    private func expectStreams(_ reader: some DatabaseReader<Database>) async throws {
        let request = Label.select(Column("name"))
        #expect(try await collect(reader.stream(Tag.self, request)) == Self.byValue)
        #expect(try await collect(reader.stream(Tag.self, Self.sql)) == Self.byValue)
        #expect(
            try await collect(reader.stream(Tag.self, query: Self.query, parameters: ["name": "a"])) == Self.byValue)
        #expect(try await collect(reader.stream(Tag.self, Self.sql, decoder: RowDecoder())) == Self.byValue)
        #expect(try await collect(reader.stream(Code.self, Self.sql)) == [Code(text: "a")])
        #expect(try await collect(reader.stream(Code.self, request)) == [Code(text: "a")])
        #expect(
            try await collect(reader.stream(Name.self, query: Self.query, parameters: ["name": "a"])) == [
                Name(name: "a")
            ])
        #expect(try await collect(reader.stream(Label.all())).map(\.name) == ["a"])
    }

    @Test func queueStreamsReadThroughTheConversion() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try makeLabels(db) }
        try await expectStreams(queue)
        #expect(try await collect(queue.stream(Tag.self, query: Self.query, parameters: ["name": "a"])) == Self.byValue)
        await queue.close()
    }

    @Test func poolStreamsReadThroughTheConversion() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try makeLabels(db) }
            try await expectStreams(pool)
            #expect(try await collect(pool.stream(Tag.self, Self.sql)) == Self.byValue)
        }
    }
}
