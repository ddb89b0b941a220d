import Foundation
import Strata
import Testing

@Suite("Codable round trips")
struct RoundTripTests {
    @Test func everyShapeRoundTrips() throws {
        let db = try makeEverythingDatabase()
        let original = Everything.sample()
        let insert = try db.prepare(query: Everything.insertSQL)
        try StatementEncoder().encode(original, to: insert)
        try insert.perform()

        let decoded = try #require(try db.fetchOne(Everything.self, query: "SELECT * FROM everything"))
        var expected = original
        expected.id = try db.lastInsertedId
        // Text dates keep milliseconds.
        #expect(abs(decoded.date.timeIntervalSince(expected.date)) < 0.001)
        expected.date = decoded.date
        #expect(decoded == expected)
    }

    @Test func nestedValuesAreJSONThatSQLiteCanQuery() throws {
        let db = try makeEverythingDatabase()
        try db.execute(query: Everything.insertSQL, parameters: Everything.sample())
        let street = try db.fetchOne(String.self, query: "SELECT json_extract(address, '$.street') FROM everything")
        #expect(street == "1 Infinite Loop")
        let firstTag = try db.fetchOne(String.self, query: "SELECT json_extract(tags, '$[0]') FROM everything")
        #expect(firstTag == "a")
        let type = try db.fetchOne(String.self, query: "SELECT typeof(address) FROM everything")
        #expect(type == "text")
    }

    @Test func enumsStoreTheirRawValue() throws {
        let db = try makeEverythingDatabase()
        try db.execute(query: Everything.insertSQL, parameters: Everything.sample())
        #expect(try db.fetchOne(String.self, query: "SELECT mood FROM everything") == "sad")
        #expect(try db.fetchOne(Int.self, query: "SELECT priority FROM everything") == 9)
        #expect(try db.fetchOne(Double.self, query: "SELECT temperature FROM everything") == 21.5)
    }

    @Test func bplistArrayStrategyStoresBlobsAndReadsBack() throws {
        let db = try makeEverythingDatabase()
        var encoder = StatementEncoder()
        encoder.arrayStrategy = .bplist
        try db.execute(query: Everything.insertSQL, parameters: Everything.sample(), encoder: encoder)
        #expect(try db.fetchOne(String.self, query: "SELECT typeof(tags) FROM everything") == "blob")
        let decoded = try #require(try db.fetchOne(Everything.self, query: "SELECT * FROM everything"))
        #expect(decoded.tags == ["a", "b"])
        #expect(decoded.address == Address(street: "1 Infinite Loop", zip: 95014))
    }

    @Test(arguments: [DateStrategy.text, .integer, .real, .unixMilliseconds])
    func dateStrategiesRoundTrip(strategy: DateStrategy) throws {
        struct Event: Codable, Equatable { var at: Date }
        let db = try Database()
        try db.execute(query: "CREATE TABLE event (at)")
        var encoder = StatementEncoder()
        encoder.dateStrategy = strategy
        var decoder = RowDecoder()
        decoder.dateStrategy = strategy
        let event = Event(at: Date(timeIntervalSince1970: 1_000_000_000))
        try db.execute(query: "INSERT INTO event VALUES (:at)", parameters: event, encoder: encoder)
        let read = try #require(try db.fetchOne(Event.self, query: "SELECT at FROM event", decoder: decoder))
        #expect(abs(read.at.timeIntervalSince(event.at)) < 0.001)
    }

    @Test func classesWithSuperCodingRoundTrip() throws {
        class Base: Codable {
            var id: Int
            init(id: Int) { self.id = id }
        }
        final class Child: Base {
            var name: String
            init(id: Int, name: String) {
                self.name = name
                super.init(id: id)
            }
            enum CodingKeys: String, CodingKey { case name }
            required init(from decoder: any Decoder) throws {
                name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
                try super.init(from: decoder.container(keyedBy: CodingKeys.self).superDecoder())
            }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try super.encode(to: container.superEncoder())
            }
        }
        let db = try Database()
        try db.execute(query: "CREATE TABLE child (id INTEGER, name TEXT)")
        try db.execute(query: "INSERT INTO child VALUES (:id, :name)", parameters: Child(id: 7, name: "Ada"))
        let child = try #require(try db.fetchOne(Child.self, query: "SELECT * FROM child"))
        #expect(child.id == 7)
        #expect(child.name == "Ada")
    }

    @Test func tenThousandRowsDecodeInOrder() throws {
        struct Item: Codable, Equatable {
            var id: Int64
            var name: String
            var score: Double
            var note: String?
        }
        let db = try Database()
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT)")
        let items = (1...10_000).map {
            Item(id: Int64($0), name: "item \($0)", score: Double($0) / 2, note: $0 % 3 == 0 ? nil : "n")
        }
        try db.transaction { db in
            let insert = try db.prepare(query: "INSERT INTO item VALUES (:id, :name, :score, :note)")
            let encoder = StatementEncoder()
            for item in items {
                try encoder.encode(item, to: insert)
                try insert.perform()
            }
        }
        let fetched = try db.fetchAll(Item.self, query: "SELECT * FROM item ORDER BY id")
        #expect(fetched == items)
    }
}
