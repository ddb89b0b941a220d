import Foundation
import Strata
import Testing

private struct Price: Model, Equatable {
    static let tableName = "price"
    var id: Int64?
    var amount: Decimal
}

private struct Event: Model, Equatable {
    static let tableName = "event"
    var id: Int64?
    var at: Date
}

@Suite("Correctness: column affinity never changes a value silently")
struct AffinityTests {
    static let longDecimal = Decimal(sign: .plus, exponent: -2, significand: Decimal(1_234_567_890_123_456_789))

    @Test(arguments: ["NUMERIC", "DECIMAL(20,2)", "REAL", "INTEGER", "MONEY"])
    func aDecimalWithMoreDigitsThanARealKeepsIsRefusedByANumericColumn(declared: String) throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE price (id INTEGER PRIMARY KEY, amount \(declared))")
        var price = Price(id: nil, amount: Self.longDecimal)
        let error = expectError(.valueOutOfRange) { try db.insert(&price) }
        #expect(error.text.contains("declare the column TEXT"))
        #expect(error?.column == "amount")
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM price") == 0)
        try db.insert(Price(id: 1, amount: 1))
        expectError(.valueOutOfRange) { try db.update(Price(id: 1, amount: Self.longDecimal)) }
        var upserted = Price(id: 1, amount: Self.longDecimal)
        expectError(.valueOutOfRange) { try db.upsert(&upserted) }
        #expect(try db.find(Price.self, id: 1)?.amount == 1)
    }

    @Test(arguments: ["TEXT", "VARCHAR(40)", "BLOB", ""])
    func aDecimalKeepsEveryDigitInATextOrUntypedColumn(declared: String) throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE price (id INTEGER PRIMARY KEY, amount \(declared))")
        var price = Price(id: nil, amount: Self.longDecimal)
        try db.insert(&price)
        #expect(try db.find(Price.self, id: 1)?.amount == Self.longDecimal)
        #expect(price.amount == Self.longDecimal)
    }

    @Test(arguments: ["0.1", "123.456", "-98765.4321", "100.10", "123456789012345", "0.000000123"])
    func aDecimalOfUpTo15DigitsSurvivesANumericColumn(text: String) throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE price (id INTEGER PRIMARY KEY, amount NUMERIC)")
        let amount = try #require(Decimal(string: text))
        var price = Price(id: nil, amount: amount)
        try db.insert(&price)
        #expect(price.amount == amount)
        #expect(try db.find(Price.self, id: 1)?.amount == amount)
    }

    @Test func aRealReadAsDecimalIsTheShortestDecimalNamingIt() throws {
        let db = try Database()
        #expect(try read(Decimal.self, from: .real(0.1), in: db) == Decimal(string: "0.1"))
        #expect(try read(Decimal.self, from: .real(123.456), in: db) == Decimal(string: "123.456"))
    }

    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: [DateStrategy.integer, .unixMilliseconds, .real, .text])
    func aDateReadsBackFromATextColumnUnderEveryStrategy(strategy: DateStrategy) throws {
        let db = try Database()
        db.dateStrategy = strategy
        try db.execute(query: "CREATE TABLE event (id INTEGER PRIMARY KEY, at TEXT)")
        var event = Event(id: nil, at: Self.date)
        try db.insert(&event)
        #expect(abs(event.at.timeIntervalSince(Self.date)) < 0.001)
        let all = try db.fetchAll(Event.self)
        #expect(all.count == 1)
        #expect(abs((all.first?.at ?? .distantPast).timeIntervalSince(Self.date)) < 0.001)
    }

    @Test(arguments: [DateStrategy.integer, .unixMilliseconds, .real, .text], ["INTEGER", "REAL", "NUMERIC", "BLOB"])
    func aDateReadsBackFromANumericColumnUnderEveryStrategy(strategy: DateStrategy, declared: String) throws {
        let db = try Database()
        db.dateStrategy = strategy
        try db.execute(query: "CREATE TABLE event (id INTEGER PRIMARY KEY, at \(declared))")
        // Noon UTC is a whole Julian day, which an INTEGER column stores as INTEGER.
        for date in [Self.date, Date(timeIntervalSince1970: 1_700_049_600)] {
            var event = Event(id: nil, at: date)
            try db.insert(&event)
            let found = try #require(try db.find(Event.self, id: event.id ?? 0))
            #expect(abs(found.at.timeIntervalSince(date)) < 0.001, "\(strategy) in \(declared)")
        }
    }

    @Test func anIntegralRealReadsAsBoolAsItDoesAsInt() throws {
        let db = try Database()
        #expect(try read(Bool.self, from: .real(1.0), in: db) == true)
        #expect(try read(Bool.self, from: .real(0.0), in: db) == false)
        #expect(try read(Int.self, from: .real(1.0), in: db) == 1)
        expectError(.typeMismatch) { _ = try read(Bool.self, from: .real(0.5), in: db) }
        struct Flag: Decodable { var enabled: Bool }
        #expect(try db.fetchOne(Flag.self, query: "SELECT 1.0 AS enabled")?.enabled == true)
    }
}
