import Foundation
import Strata
import Testing

@Suite struct CustomValueTests {
    /// Money stored as integer cents: a user type through the public protocol.
    struct Money: DatabaseValueConvertible, Equatable {
        struct NotCents: Error {}

        var cents: Int64

        init(cents: Int64) { self.cents = cents }

        var databaseValue: DatabaseValue { .integer(cents) }

        init(databaseValue: DatabaseValue) throws {
            guard case .integer(let cents) = databaseValue else { throw NotCents() }
            self.cents = cents
        }
    }

    /// A tagged id stored as text with a prefix.
    struct NoteID: DatabaseValueConvertible, Hashable {
        struct Malformed: Error, CustomStringConvertible {
            var description: String { "not a note id" }
        }

        var uuid: UUID

        init(_ uuid: UUID) { self.uuid = uuid }

        var databaseValue: DatabaseValue { .text("note_" + uuid.uuidString) }

        init(databaseValue: DatabaseValue) throws {
            let text = try String(databaseValue: databaseValue)
            guard text.hasPrefix("note_"), let uuid = UUID(uuidString: String(text.dropFirst(5))) else {
                throw Malformed()
            }
            self.uuid = uuid
        }
    }

    enum Color: String, DatabaseValueConvertible {
        case red, green, blue
    }

    enum Priority: Int, DatabaseValueConvertible {
        case low = 1
        case high = 9
    }

    @Test func aUserTypeBindsAndReads() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE item (price INTEGER, id TEXT)")
        let id = NoteID(UUID())
        let insert = try db.prepare(query: "INSERT INTO item VALUES (:price, :id)")
        try insert.bind(value: Money(cents: 1999), for: "price")
        try insert.bind(value: id, for: "id")
        try insert.perform()
        let row = try #require(try db.prepare(query: "SELECT price, id, typeof(price) AS t FROM item").next())
        #expect(try row.price == Money(cents: 1999))
        #expect(try row.id == id)
        #expect(try row.t == "integer")
        // SQL arithmetic sees the cents.
        let total = try #require(try db.prepare(query: "SELECT sum(price) AS total FROM item").next())
        #expect(try total.total == 1999)
    }

    @Test func optionalUserTypes() throws {
        let db = try makeDatabase()
        #expect(try stored(nil as Money?, in: db).value == .null)
        #expect(try roundTrip(Money(cents: 5) as Money?, in: db) == Money(cents: 5))
        #expect(try read(Money?.self, from: .null, in: db) == nil)
    }

    @Test func aUserTypeThatRejectsAValueThrowsWithTheColumn() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT 'twelve' AS price").next())
        let error = expectError(.invalidValue) { let _: Money = try row.price }
        #expect(error?.underlyingError is Money.NotCents)
        #expect(error?.column == "price")
        #expect(error.text.contains("Money"))
        #expect(error.text.contains("TEXT"))
        #expect(error.text.contains("SELECT 'twelve' AS price"))
    }

    @Test func aUserTypeThrowingADatabaseErrorKeepsItsCodeAndGainsTheColumn() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT 'nope' AS id, 3 AS number").next())
        let invalid = expectError(.invalidValue) { let _: NoteID = try row.id }
        #expect(invalid?.column == "id")
        #expect(invalid.text.contains("not a note id"))
        #expect(invalid?.underlyingError is NoteID.Malformed)
        let mismatch = expectError(.typeMismatch) { let _: NoteID = try row.number }
        #expect(mismatch?.column == "number")
    }

    // MARK: RawRepresentable

    @Test func stringEnumsStoreTheirRawValue() throws {
        let db = try makeDatabase()
        #expect(try stored(Color.green, in: db).value == .text("green"))
        #expect(try roundTrip(Color.blue, in: db) == .blue)
        #expect(try read(Color?.self, from: .null, in: db) == nil)
        #expect(Color.red.databaseValue == .text("red"))
    }

    @Test func intEnumsStoreTheirRawValue() throws {
        let db = try makeDatabase()
        #expect(try stored(Priority.high, in: db).value == .integer(9))
        #expect(try roundTrip(Priority.low, in: db) == .low)
    }

    @Test func anUnknownRawValueThrows() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT 'purple' AS color, 5 AS priority").next())
        let color = expectError(.invalidValue) { let _: Color = try row.color }
        #expect(color.text.contains("Color"))
        #expect(color.text.contains("column \"color\""))
        expectError(.invalidValue) { let _: Priority = try row.priority }
        expectError(.typeMismatch) { let _: Color = try row.priority }
    }

    @Test func enumsInArrays() throws {
        let db = try makeDatabase()
        let colors: [String] = [Color.red, .blue].map(\.rawValue)
        #expect(try roundTrip(colors, in: db).compactMap(Color.init(rawValue:)) == [.red, .blue])
    }

    // MARK: Through every binding door

    @Test func userTypesBindThroughDictionariesAndArrays() throws {
        let db = try makeDatabase()
        let named = try db.prepare(query: "SELECT :price AS price, :color AS color")
        try named.bind(["price": Money(cents: 7), "color": Color.red])
        let row = try #require(try named.next())
        #expect(try row.price == Money(cents: 7))
        #expect(try row.color == Color.red)
        let positional = try db.prepare(query: "SELECT ? AS a, ? AS b")
        try positional.bind([Priority.high, Money(cents: 1)])
        let second = try #require(try positional.next())
        #expect(try second.a == Priority.high)
        #expect(try second.b == Money(cents: 1))
    }

    @Test func existentialValuesKeepTheirStrategies() throws {
        let db = try makeDatabase()
        db.uuidStrategy = .text
        let uuid = UUID()
        let statement = try db.prepare(query: "SELECT typeof(?) AS t")
        try statement.bind([uuid as any DatabaseValueConvertible])
        #expect(try statement.next()?.t == "text")
    }
}
