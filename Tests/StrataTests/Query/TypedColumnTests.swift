import Foundation
import Strata
import StrataRecord
import Testing

@Table("gadget")
private struct Gadget: Codable, Equatable {
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var name: String
    var priceCents: Int
    var retiredAt: Date?
}

@Table("part")
private struct Part: Codable, Equatable {
    var id: Int64?
    var gadgetId: Int64
    var label: String
}

/// Typed columns stand where `Column` does, render the same SQL, and compare only with values of their own type (a
/// mismatched comparison does not compile, which no test can run; the README states it).
@Suite("Query: typed columns")
struct TypedColumnTests {
    @Test("A typed column is named through the key strategy and qualified with its table")
    func naming() {
        #expect(Gadget.columns.priceCents.name == "price_cents")
        #expect(Gadget.filter(Gadget.columns.priceCents > 100).sql.contains("\"gadget\".\"price_cents\" > ?"))
        #expect(Gadget.filter(Gadget.columns.retiredAt == nil).sql.contains("\"gadget\".\"retired_at\" IS NULL"))
        #expect(Gadget.filter(Gadget.columns.retiredAt != nil).sql.contains("\"retired_at\" IS NOT NULL"))
        #expect(Gadget.filter(Gadget.columns.id == 3).sql.contains("\"gadget\".\"id\" = ?"))
    }

    @Test("Filters, orderings, functions, IN, BETWEEN, arithmetic and assignments run with typed columns")
    func queries() throws {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE gadget (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL,
                                     retired_at TEXT);
                CREATE TABLE part (id INTEGER PRIMARY KEY, gadgetId INTEGER NOT NULL, label TEXT NOT NULL);
                """)
        var cheap = Gadget(id: nil, name: "clip", priceCents: 50, retiredAt: nil)
        var dear = Gadget(id: nil, name: "lamp", priceCents: 4_000, retiredAt: Date(timeIntervalSince1970: 0))
        try db.insert(&cheap)
        try db.insert(&dear)
        var part = Part(id: nil, gadgetId: try #require(dear.id), label: "bulb")
        try db.insert(&part)
        let columns = Gadget.columns

        #expect(try db.fetchAll(Gadget.filter(columns.priceCents >= 100)) == [dear])
        #expect(try db.fetchAll(Gadget.filter(100 > columns.priceCents)) == [cheap])
        #expect(try db.fetchAll(Gadget.filter(columns.retiredAt == nil)) == [cheap])
        #expect(try db.fetchAll(Gadget.filter(columns.name.like("l%"))) == [dear])
        #expect(try db.fetchAll(Gadget.filter(["clip", "pen"].contains(columns.name))) == [cheap])
        #expect(try db.fetchAll(Gadget.filter([dear.id ?? 0].contains(columns.id))) == [dear])
        #expect(try db.fetchAll(Gadget.filter((10...60).contains(columns.priceCents))) == [cheap])
        #expect(try db.fetchAll(Gadget.filter(columns.priceCents.between(10, 60))) == [cheap])
        #expect(try db.fetchAll(Gadget.filter(columns.priceCents * 2 > 1_000)) == [dear])
        #expect(try db.fetchAll(Gadget.filter(columns.priceCents == Column("price_cents"))).count == 2)
        #expect(try db.fetchAll(Gadget.order(columns.priceCents.desc)) == [dear, cheap])
        #expect(try db.fetchOne(Int.self, Gadget.select(max(columns.priceCents))) == 4_000)

        let joined = try db.fetchAll(
            Gadget.joining(Part.self, on: Part.columns.gadgetId == columns.id).filter(Part.columns.label == "bulb"))
        #expect(joined.map(\.0) == [dear])
        #expect(joined.map(\.1) == [part])

        let changed = try db.updateAll(Gadget.filter(columns.id == cheap.id), columns.priceCents.set(to: 75))
        #expect(changed == 1)
        #expect(try db.find(Gadget.self, id: cheap.id)?.priceCents == 75)
        let raised = try db.updateAll(Gadget.all(), columns.priceCents.set(to: columns.priceCents + 1))
        #expect(raised == 2)
        #expect(try db.fetchAll(Int.self, Gadget.select(columns.priceCents).order(columns.id)) == [76, 4_001])
    }
}

/// A raw-value enum, stored as its raw value.
private enum Finish: String, Codable, Sendable {
    case matte, gloss
}

@Table("paint")
private struct Paint: Codable, Equatable {
    var id: Int64?
    var finish: Finish
    var coat: Finish?
}

@Suite("Query: a typed column of a raw-value enum compares with the enum's cases")
struct EnumTypedColumnTests {
    @Test func casesCompareAsTheirRawValues() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE paint (id INTEGER PRIMARY KEY, finish TEXT NOT NULL, coat TEXT)")
        try db.insert(Paint(id: nil, finish: .matte, coat: nil))
        try db.insert(Paint(id: nil, finish: .gloss, coat: .matte))
        try db.insert(Paint(id: nil, finish: .gloss, coat: .gloss))
        #expect(try db.fetchAll(Paint.filter(Paint.columns.finish == .gloss)).map(\.id) == [2, 3])
        #expect(try db.fetchAll(Paint.filter(Paint.columns.finish != .gloss)).map(\.id) == [1])
        #expect(try db.fetchAll(Paint.filter(Paint.columns.coat == .matte)).map(\.id) == [2])
        #expect(try db.fetchAll(Paint.filter(Paint.columns.coat == nil)).map(\.id) == [1])
        #expect(try db.fetchAll(Paint.filter([Finish.matte].contains(Paint.columns.finish))).map(\.id) == [1])
        #expect(try db.updateAll(Paint.filter(Paint.columns.id == 1), Paint.columns.finish.set(to: .gloss)) == 1)
        #expect(try db.fetchCount(Paint.filter(Paint.columns.finish == .gloss)) == 3)
    }
}
