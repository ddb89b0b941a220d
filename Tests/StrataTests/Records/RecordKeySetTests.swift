import Foundation
import Strata
import Testing

/// A record whose `encode(to:)` leaves out its nil values, as hand-written encoders often do.
private struct SparseSetting: Model, Equatable {
    static let tableName = "setting"
    var id: Int64?
    var theme: String?
    var fontSize: Int?

    enum CodingKeys: String, CodingKey { case id, theme, fontSize }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        if let theme { try container.encode(theme, forKey: .theme) }
        if let fontSize { try container.encode(fontSize, forKey: .fontSize) }
    }
}

@Suite("Records: a key a value leaves out is left out of its statement")
struct RecordKeySetTests {
    private func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE setting (id INTEGER PRIMARY KEY, theme TEXT NOT NULL DEFAULT 'light', fontSize INTEGER)
                """)
        return db
    }

    /// The stored theme and font size of the setting `id`.
    private func row(_ id: Int64, in db: Database) throws -> [DatabaseValue] {
        try ["theme", "fontSize"].map { column in
            try #require(
                try db.fetchAll(
                    DatabaseValue.self, query: "SELECT \(column) FROM setting WHERE id = :id", parameters: ["id": id]
                ).first)
        }
    }

    @Test func anInsertLeavingAColumnOutStoresItsDefaultAfterAnInsertThatWroteIt() throws {
        let db = try database()
        var dark = SparseSetting(id: nil, theme: "dark", fontSize: 12)
        try db.insert(&dark)
        var plain = SparseSetting(id: nil, theme: nil, fontSize: nil)
        try db.insert(&plain)
        #expect(plain.id == 2)
        #expect(plain.theme == "light")
        #expect(try row(2, in: db) == [.text("light"), .null])
    }

    @Test func anUpdateLeavingAColumnOutKeepsItsValue() throws {
        let db = try database()
        var dark = SparseSetting(id: nil, theme: "dark", fontSize: 12)
        try db.insert(&dark)
        try db.update(SparseSetting(id: 1, theme: nil, fontSize: 14))
        #expect(try row(1, in: db) == [.text("dark"), .integer(14)])
        try db.update(SparseSetting(id: 1, theme: "blue", fontSize: nil))
        #expect(try row(1, in: db) == [.text("blue"), .integer(14)])
    }

    @Test func whatAConnectionWroteBeforeNeverChangesTheNextWrite() throws {
        // The same two writes on a fresh connection and after writes of every key give the same rows.
        let fresh = try database()
        let used = try database()
        var full = SparseSetting(id: nil, theme: "dark", fontSize: 12)
        try used.insert(&full)
        try used.update(full)
        try used.upsert(&full)
        try used.execute(query: "DELETE FROM setting")
        for db in [fresh, used] {
            var first = SparseSetting(id: nil, theme: "dark", fontSize: nil)
            try db.insert(&first)
            var second = SparseSetting(id: 1, theme: nil, fontSize: 10)
            try db.upsert(&second)
        }
        #expect(try row(1, in: fresh) == [.text("dark"), .integer(10)])
        #expect(try row(1, in: used) == [.text("dark"), .integer(10)])
    }

    @Test func anUpsertLeavingAColumnOutKeepsItOnConflictAndDefaultsItOnInsert() throws {
        let db = try database()
        var dark = SparseSetting(id: nil, theme: "dark", fontSize: 12)
        try db.insert(&dark)
        var existing = SparseSetting(id: 1, theme: nil, fontSize: 16)
        try db.upsert(&existing)
        #expect(try row(1, in: db) == [.text("dark"), .integer(16)])
        var new = SparseSetting(id: 7, theme: nil, fontSize: nil)
        try db.upsert(&new)
        #expect(try row(7, in: db) == [.text("light"), .null])
    }

    @Test func aBatchOfValuesWithDifferentKeysWritesEachAsItsOwnInsert() throws {
        let db = try database()
        var batch = [
            SparseSetting(id: nil, theme: "dark", fontSize: 12),
            SparseSetting(id: nil, theme: nil, fontSize: 13),
            SparseSetting(id: nil, theme: "blue", fontSize: nil),
            SparseSetting(id: nil, theme: nil, fontSize: nil),
        ]
        try db.insert(contentsOf: &batch)
        #expect(batch.map(\.id) == [1, 2, 3, 4])
        #expect(batch.map(\.theme) == ["dark", "light", "blue", "light"])
        #expect(try row(2, in: db) == [.text("light"), .integer(13)])
        #expect(try row(3, in: db) == [.text("blue"), .null])
    }
}
