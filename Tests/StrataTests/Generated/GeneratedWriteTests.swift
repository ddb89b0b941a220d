import Foundation
import StrataRecord
import Testing

@testable import Strata

/// A small `@Table` type for the write-pass tests.
@Table("lean_note")
struct LeanNote: Codable, Equatable {
    var id: Int64?
    var title: String
    var body: Data
    var score: Double
    var createdAt: Date

    static let createTable = "CREATE TABLE lean_note (id INTEGER PRIMARY KEY, title, body, score, createdAt)"

    init(id: Int64?, title: String = "t", body: Data = Data([1, 2]), score: Double = 0.5, createdAt: Date = .init()) {
        self.id = id
        self.title = title
        self.body = body
        self.score = score
        self.createdAt = createdAt
    }
}

/// A model with a key is inserted, updated and upserted by a lean pass over the generated writer (the type's cached
/// statement and writer, parameters bound by index); a nil key takes the path of every model. Both must store what
/// the Codable path stores.
@Suite("Generated records: the write pass of a model with a key")
struct GeneratedWriteTests {
    @Test(
        "Keyed inserts, updates and upserts of every value kind store what the Codable path stores",
        arguments: RoundTripFuzzTests.strategies)
    func keyedWrites(strategies: RoundTripStrategies) throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] {
            db.dateStrategy = strategies.date
            db.arrayStrategy = strategies.array
            db.uuidStrategy = strategies.uuid
            try db.execute(query: GAllKinds.createTable("all_kinds"))
        }
        var generator = SplitMix64(seed: 0x1EA7_0000 + strategies.seed)
        var values = (1...40).map { GAllKinds.generate(id: Int64($0), using: &generator) }
        for value in values {
            try generatedDB.insert(value)
            try codableDB.insert(CodableTwin(value))
        }
        for index in 0..<10 {
            var value = GAllKinds.generate(id: Int64(41 + index), using: &generator)
            let written = value
            var twin = CodableTwin(value)
            try generatedDB.insert(&value)
            try codableDB.insert(&twin)
            expectIdentical(value, twin.base, "insert(&) \(41 + index)")
            expectIdentical(value.normalized, written.normalized, "insert(&) \(41 + index) reads back what it wrote")
            values.append(value)
        }
        expectSameStoredRows(
            try storedRows(generatedDB, "all_kinds"), try storedRows(codableDB, "all_kinds"), "after insert")

        for index in stride(from: 0, to: values.count, by: 2) {
            let changed = GAllKinds.generate(id: values[index].id, using: &generator)
            try generatedDB.update(changed)
            try codableDB.update(CodableTwin(changed))
            values[index] = changed
            var upserted = GAllKinds.generate(id: values[index + 1].id, using: &generator)
            var twin = CodableTwin(upserted)
            try generatedDB.upsert(&upserted)
            try codableDB.upsert(&twin)
            expectIdentical(upserted, twin.base, "upsert \(index + 2)")
            values[index + 1] = upserted
        }
        var new = GAllKinds.generate(id: 1_000, using: &generator)
        var newTwin = CodableTwin(new)
        try generatedDB.upsert(&new)
        try codableDB.upsert(&newTwin)
        values.append(new)
        expectSameStoredRows(
            try storedRows(generatedDB, "all_kinds"), try storedRows(codableDB, "all_kinds"), "after update")
        let read = try generatedDB.fetchAll(GAllKinds.self)
        expectIdentical(read.map(\.normalized), values.map(\.normalized), "fetchAll against the values written")
    }

    @Test("Inserts alternating nil and set keys get the keys SQLite assigns and the keys given")
    func alternatingKeys() throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] { try db.execute(query: LeanNote.createTable) }
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let keys: [Int64?] = [10, nil, nil, 20, nil, 30, 31, nil, 7, nil]
        var ids: [Int64?] = []
        for (offset, key) in keys.enumerated() {
            var note = LeanNote(id: key, title: "note \(offset)", score: Double(offset), createdAt: date)
            var twin = CodableTwin(note)
            try generatedDB.insert(&note)
            try codableDB.insert(&twin)
            expectIdentical(note, twin.base, "insert \(offset)")
            ids.append(note.id)
        }
        #expect(ids == [10, 11, 12, 20, 21, 30, 31, 32, 7, 33])
        // A non-inout insert with a nil key inserts too, its key assigned by SQLite.
        try generatedDB.insert(LeanNote(id: nil, title: "last", createdAt: date))
        try codableDB.insert(CodableTwin(LeanNote(id: nil, title: "last", createdAt: date)))
        expectSameStoredRows(try storedRows(generatedDB, "lean_note"), try storedRows(codableDB, "lean_note"), "rows")
        let titles = try generatedDB.fetchAll(String.self, query: "SELECT title FROM lean_note ORDER BY id")
        #expect(titles.count == 11)
        #expect(try generatedDB.fetchOne(String.self, query: "SELECT title FROM lean_note WHERE id = 34") == "last")
    }

    @Test("A change of the database's strategies between two inserts of a type applies to the second")
    func strategiesChange() throws {
        let db = try makeDatabase()
        try db.execute(query: LeanNote.createTable)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try db.insert(LeanNote(id: 1, createdAt: date))
        db.dateStrategy = .unixMilliseconds
        try db.insert(LeanNote(id: 2, createdAt: date))
        db.dateStrategy = .integer
        var third = LeanNote(id: 3, createdAt: date)
        try db.insert(&third)
        let query = "SELECT typeof(createdAt) || ':' || createdAt FROM lean_note ORDER BY id"
        let stored = try db.fetchAll(String.self, query: query)
        #expect(stored.count == 3)
        #expect(stored.first?.hasPrefix("text:2023-11-14") == true)
        #expect(stored.dropFirst() == ["integer:1700000000000", "integer:1700000000"])
        try db.update(LeanNote(id: 2, title: "updated", createdAt: date))
        #expect(try db.fetchAll(String.self, query: query).suffix(2) == ["integer:1700000000", "integer:1700000000"])
        #expect(try db.fetchAll(LeanNote.self).map(\.createdAt) == [date, date, date])
    }

    @Test("Empty text and blobs bind empty values, not NULL; NaN throws as on the Codable path and writes nothing")
    func edgeValues() throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] { try db.execute(query: LeanNote.createTable) }
        let date = Date(timeIntervalSince1970: 0)
        let empty = LeanNote(id: 1, title: "", body: Data(), score: -0.0, createdAt: date)
        try generatedDB.insert(empty)
        try codableDB.insert(CodableTwin(empty))
        let types = try generatedDB.fetchOne(
            String.self,
            query:
                "SELECT typeof(title) || ',' || length(title) || ',' || typeof(body) || ',' || length(body) FROM lean_note"
        )
        #expect(types == "text,0,blob,0")
        expectIdentical(try generatedDB.find(LeanNote.self, id: 1), empty)

        for nan in [Double.nan, -Double.nan, Double.signalingNaN] {
            let bad = LeanNote(id: 2, score: nan, createdAt: date)
            let generated = outcome { try generatedDB.insert(bad) }
            let codable = outcome { try codableDB.insert(CodableTwin(bad)) }
            expectSameOutcome(generated, codable, "NaN score", same: { _, _ in true })
            let error = try #require(generated.failure)
            #expect(String(describing: error).contains("NaN"))
            #expect(try generatedDB.fetchOne(Int.self, query: "SELECT count(*) FROM lean_note") == 1)
        }
        // The statement is usable after the failed pass: the next insert writes its own values.
        try generatedDB.insert(LeanNote(id: 2, title: "after", score: 2, createdAt: date))
        try codableDB.insert(CodableTwin(LeanNote(id: 2, title: "after", score: 2, createdAt: date)))
        expectSameStoredRows(try storedRows(generatedDB, "lean_note"), try storedRows(codableDB, "lean_note"), "rows")
    }

    @Test("An insert SQLite ignores and an update of a missing row throw, the stored row unchanged")
    func ignoredWrites() throws {
        let db = try makeDatabase()
        try db.execute(
            query: "CREATE TABLE lean_note (id INTEGER PRIMARY KEY ON CONFLICT IGNORE, title, body, score, createdAt)")
        let date = Date(timeIntervalSince1970: 0)
        try db.insert(LeanNote(id: 1, title: "first", createdAt: date))
        #expect {
            try db.insert(LeanNote(id: 1, title: "second", createdAt: date))
        } throws: { ($0 as? DatabaseError)?.code == .recordNotInserted }
        var again = LeanNote(id: 1, title: "third", createdAt: date)
        #expect {
            try db.insert(&again)
        } throws: { ($0 as? DatabaseError)?.code == .recordNotInserted }
        #expect(again.title == "third")
        #expect {
            try db.update(LeanNote(id: 99, title: "missing", createdAt: date))
        } throws: { ($0 as? DatabaseError)?.code == .recordNotFound }
        #expect(try db.fetchAll(LeanNote.self).map(\.title) == ["first"])
    }
}
