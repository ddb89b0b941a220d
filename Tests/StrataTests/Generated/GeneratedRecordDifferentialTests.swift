import Foundation
import StrataRecord
import Testing

@testable import Strata

/// Record operations on `@Table` types (generated code) against the same operations on `CodableTwin`s of the same
/// types (their `Codable` conformance), each in a database of its own: same rows stored, same models read.
@Suite("Generated records: record operations, schema changes, joins, dispatch")
struct GeneratedRecordDifferentialTests {
    // MARK: Record operations

    @Test(
        "insert, update, upsert, find and fetches store and read what the Codable path does",
        arguments: RoundTripFuzzTests.strategies)
    func recordOperations(strategies: RoundTripStrategies) throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] {
            db.dateStrategy = strategies.date
            db.arrayStrategy = strategies.array
            db.uuidStrategy = strategies.uuid
            try db.execute(query: GAllKinds.createTable("all_kinds"))
        }
        var generator = SplitMix64(seed: 0xD1FF_1000 + strategies.seed)
        var values = (0..<60).map { _ in GAllKinds.generate(id: nil, using: &generator) }

        // insert(&x): a nil key is assigned and the row read back.
        for index in values.indices {
            var twin = CodableTwin(values[index])
            try generatedDB.insert(&values[index])
            try codableDB.insert(&twin)
            #expect(values[index].id == Int64(index + 1))
            expectIdentical(values[index], twin.base, "insert \(index + 1)")
        }
        expectSameStoredRows(
            try storedRows(generatedDB, "all_kinds"), try storedRows(codableDB, "all_kinds"), "after insert")

        // update, upsert of an existing and of a new row.
        for index in stride(from: 0, to: values.count, by: 3) {
            var changed = GAllKinds.generate(id: values[index].id, using: &generator)
            try generatedDB.update(changed)
            try codableDB.update(CodableTwin(changed))
            values[index] = changed
            changed = GAllKinds.generate(id: values[index + 1].id, using: &generator)
            var twin = CodableTwin(changed)
            try generatedDB.upsert(&changed)
            try codableDB.upsert(&twin)
            expectIdentical(changed, twin.base, "upsert \(index + 2)")
            values[index + 1] = changed
        }
        var added = GAllKinds.generate(id: nil, using: &generator)
        var addedTwin = CodableTwin(added)
        try generatedDB.upsert(&added)
        try codableDB.upsert(&addedTwin)
        #expect(added.id == Int64(values.count + 1))
        expectIdentical(added, addedTwin.base, "upsert of a new row")
        values.append(added)
        expectSameStoredRows(
            try storedRows(generatedDB, "all_kinds"), try storedRows(codableDB, "all_kinds"), "after update")

        // find, fetchAll, requests, fetchOne, fetchCursor.
        for value in values {
            let id = try #require(value.id)
            let found = try #require(try generatedDB.find(GAllKinds.self, id: id))
            let twin = try #require(try codableDB.find(CodableTwin<GAllKinds>.self, id: id))
            expectIdentical(found, twin.base, "find \(id)")
            expectIdentical(found.normalized, value.normalized, "find \(id) against the value written")
        }
        #expect(try generatedDB.find(GAllKinds.self, id: 10_000) == nil)
        let all = try generatedDB.fetchAll(GAllKinds.self)
        #expect(all.count == values.count)
        expectIdentical(all, try codableDB.fetchAll(CodableTwin<GAllKinds>.self).map(\.base))
        expectIdentical(all.map(\.normalized), values.map(\.normalized), "fetchAll against the values")

        let filtered = try generatedDB.fetchAll(
            GAllKinds.filter(GAllKinds.columns.bool == true).order(GAllKinds.columns.id.desc))
        let filteredTwins = try codableDB.fetchAll(
            CodableTwin<GAllKinds>.filter(GAllKinds.columns.bool == true).order(GAllKinds.columns.id.desc))
        #expect(!filtered.isEmpty && filtered.count < values.count)
        #expect(filtered.allSatisfy { $0.bool })
        expectIdentical(filtered, filteredTwins.map(\.base))
        let int8 = try #require(values.first?.int8)
        let byInt8 = try generatedDB.fetchAll(GAllKinds.filter(GAllKinds.columns.int8 == int8))
        #expect(!byInt8.isEmpty && byInt8.allSatisfy { $0.int8 == int8 })
        expectIdentical(
            byInt8, try codableDB.fetchAll(CodableTwin<GAllKinds>.filter(GAllKinds.columns.int8 == int8)).map(\.base))

        let first = try generatedDB.fetchOne(GAllKinds.filter(GAllKinds.columns.id > 5))
        let firstTwin = try codableDB.fetchOne(CodableTwin<GAllKinds>.filter(GAllKinds.columns.id > 5))
        #expect(first?.id == 6)
        expectIdentical(first, firstTwin?.base)
        let one = try generatedDB.fetchOne(GAllKinds.self, where: "id = :id", parameters: ["id": 7])
        #expect(one?.id == 7)
        expectIdentical(one, try codableDB.fetchOne(CodableTwin<GAllKinds>.self, where: "id = 7")?.base)
        let some = try generatedDB.fetchAll(GAllKinds.self, where: "id > 50")
        expectIdentical(some, try codableDB.fetchAll(CodableTwin<GAllKinds>.self, where: "id > 50").map(\.base))
        #expect(some.map(\.id) == (51...values.count).map { Int64($0) })

        let cursor = try drain(generatedDB.fetchCursor(GAllKinds.order(GAllKinds.columns.id)))
        expectIdentical(cursor, all)
        let query = "SELECT * FROM all_kinds ORDER BY id"
        expectIdentical(try drain(generatedDB.fetchCursor(GAllKinds.self, query: query)), all)
        expectIdentical(
            try fetchCursorDecodable(generatedDB, GAllKinds.self, query: query, decoder: Path.codableDecoder), all)
        expectIdentical(try generatedDB.fetchAll(GAllKinds.self, query: query), all)
        expectIdentical(try generatedDB.fetchOne(GAllKinds.self, query: query), all.first)
        expectIdentical(try generatedDB.fetchOne(GAllKinds.self, query: query, decoder: Path.codableDecoder), all.first)

        // delete
        #expect(try generatedDB.delete(values[0]))
        #expect(try codableDB.delete(CodableTwin(values[0])))
        #expect(try generatedDB.delete(GAllKinds.self, id: 2))
        #expect(try codableDB.delete(CodableTwin<GAllKinds>.self, id: 2))
        expectSameStoredRows(
            try storedRows(generatedDB, "all_kinds"), try storedRows(codableDB, "all_kinds"), "after delete")
        #expect(try generatedDB.fetchAll(GAllKinds.self).count == values.count - 2)
    }

    @Test("Records of a snake_case model and of custom CodingKeys store and read what the Codable path does")
    func mappedRecords() throws {
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [generatedDB, codableDB] {
            try db.execute(query: GSnake.createTable)
            try db.execute(query: "CREATE TABLE renamed (id INTEGER PRIMARY KEY, title_text, note, version)")
        }
        var snakes = [
            GSnake(
                id: nil, createdAt: Date(timeIntervalSince1970: 0), displayName: "Ada", isActive: true, parentID: nil,
                homePage: URL(string: "https://example.com")),
            GSnake(
                id: nil, createdAt: Date(timeIntervalSince1970: -1.5), displayName: "", isActive: false,
                parentID: .min, homePage: nil),
        ]
        var renamed = [GRenamed(id: nil, title: "t", note: nil, cache: 1), GRenamed(id: 9, title: "", note: "n")]
        for index in snakes.indices {
            var twin = CodableTwin(snakes[index])
            try generatedDB.insert(&snakes[index])
            try codableDB.insert(&twin)
            expectIdentical(snakes[index], twin.base)
        }
        for index in renamed.indices {
            var twin = CodableTwin(renamed[index])
            try generatedDB.insert(&renamed[index])
            try codableDB.insert(&twin)
            expectIdentical(renamed[index], twin.base)
            // Read back from the row: the left-out property has its default again.
            #expect(renamed[index].cache == 7)
        }
        snakes[1].displayName = "Bob"
        try generatedDB.update(snakes[1])
        try codableDB.update(CodableTwin(snakes[1]))
        renamed[1].note = nil
        try generatedDB.update(renamed[1])
        try codableDB.update(CodableTwin(renamed[1]))
        for table in ["snake_model", "renamed"] {
            expectSameStoredRows(try storedRows(generatedDB, table), try storedRows(codableDB, table), table)
        }
        let snakeRows = try storedRows(generatedDB, "snake_model")
        #expect(snakeRows.map { $0["display_name"] } == [.text("Ada"), .text("Bob")])
        #expect(snakeRows.map { $0["parent_id"] } == [.null, .integer(.min)])
        #expect(try storedRows(generatedDB, "renamed").map { $0["title_text"] } == [.text("t"), .text("")])

        let foundSnakes = try generatedDB.fetchAll(GSnake.filter(GSnake.columns.isActive == false))
        #expect(foundSnakes == [snakes[1]])
        let twinSnakes = try codableDB.fetchAll(CodableTwin<GSnake>.filter(GSnake.columns.isActive == false))
        expectIdentical(foundSnakes, twinSnakes.map(\.base))
        #expect(try generatedDB.find(GSnake.self, id: 1) == snakes[0])
        #expect(try generatedDB.find(GRenamed.self, id: 9) == renamed[1])
        let byTitle = try generatedDB.fetchAll(GRenamed.filter(GRenamed.columns.title == "t"))
        #expect(byTitle.map(\.id) == [1])
        let snakeQuery = "SELECT * FROM snake_model ORDER BY id"
        expectIdentical(
            try generatedDB.fetchAll(GSnake.self, query: snakeQuery),
            try fetchAllDecodable(generatedDB, GSnake.self, query: snakeQuery, decoder: Path.codableDecoder))
        #expect(try generatedDB.fetchAll(GSnake.self, query: snakeQuery) == snakes)
    }

    // MARK: Schema changes under cached statements

    @Test("A cached statement reads the right columns after ADD COLUMN")
    func addColumn() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE sc (id INTEGER PRIMARY KEY, a TEXT, b INTEGER)")
        try db.execute(query: "INSERT INTO sc (id, a, b) VALUES (1, 'a1', 10), (2, 'a2', 20)")
        let before = [GSchema(id: 1, a: "a1", b: 10, c: nil), GSchema(id: 2, a: "a2", b: 20, c: nil)]
        let statement = try db.prepare(query: "SELECT * FROM sc ORDER BY id")
        try expectReads(db, statement, before, "before ADD COLUMN")

        try db.execute(query: "ALTER TABLE sc ADD COLUMN c TEXT")
        try db.execute(query: "UPDATE sc SET c = 'c' || id")
        let after = [GSchema(id: 1, a: "a1", b: 10, c: "c1"), GSchema(id: 2, a: "a2", b: 20, c: "c2")]
        try expectReads(db, statement, after, "after ADD COLUMN")
        try expectReads(db, statement, after, "after ADD COLUMN, again")
    }

    @Test("A cached statement reads the right columns after the table is re-created in another order")
    func reorderedColumns() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE sc (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c TEXT)")
        try db.execute(query: "INSERT INTO sc VALUES (1, 'a1', 10, 'c1'), (2, 'a2', 20, NULL)")
        let statement = try db.prepare(query: "SELECT * FROM sc ORDER BY id")
        try expectReads(
            db, statement, [GSchema(id: 1, a: "a1", b: 10, c: "c1"), GSchema(id: 2, a: "a2", b: 20, c: nil)],
            "first layout")

        // Same types swapped: a stale index reads `c` for `a` without any error.
        try db.execute(query: "DROP TABLE sc")
        try db.execute(query: "CREATE TABLE sc (c TEXT, id INTEGER PRIMARY KEY, b INTEGER, a TEXT)")
        try db.execute(query: "INSERT INTO sc (id, a, b, c) VALUES (1, 'x1', 11, 'y1'), (2, 'x2', 22, 'y2')")
        try expectReads(
            db, statement, [GSchema(id: 1, a: "x1", b: 11, c: "y1"), GSchema(id: 2, a: "x2", b: 22, c: "y2")],
            "second layout")

        // Records write to the new layout and read it back.
        var new = GSchema(id: nil, a: "x3", b: 33, c: nil)
        try db.insert(&new)
        #expect(new == GSchema(id: 3, a: "x3", b: 33, c: nil))
        try db.update(GSchema(id: 1, a: "u1", b: 111, c: "v1"))
        let rows = try storedRows(db, "sc")
        #expect(rows.map { $0["a"] } == [.text("u1"), .text("x2"), .text("x3")])
        #expect(rows.map { $0["c"] } == [.text("v1"), .text("y2"), .null])

        // `c` gone: nil both ways; `a` gone: the same keyNotFound both ways.
        try db.execute(query: "DROP TABLE sc")
        try db.execute(query: "CREATE TABLE sc (b INTEGER, a TEXT, id INTEGER PRIMARY KEY)")
        try db.execute(query: "INSERT INTO sc (id, a, b) VALUES (5, 'z5', 55)")
        try expectReads(db, statement, [GSchema(id: 5, a: "z5", b: 55, c: nil)], "third layout")
        try db.execute(query: "DROP TABLE sc")
        try db.execute(query: "CREATE TABLE sc (b INTEGER, id INTEGER PRIMARY KEY, c TEXT)")
        try db.execute(query: "INSERT INTO sc (id, b, c) VALUES (6, 66, 'c6')")
        let query = "SELECT * FROM sc ORDER BY id"
        let missing = outcome { try db.fetchAll(GSchema.self, query: query) }
        let missingCodable = outcome {
            try fetchAllDecodable(db, GSchema.self, query: query, decoder: Path.codableDecoder)
        }
        expectSameOutcome(missing, missingCodable, "fourth layout, no column a")
        #expect(ErrorShape(try #require(missing.failure)).subject == "a")
        let found = outcome { try db.find(GSchema.self, id: 6) }
        let foundCodable = outcome { try db.find(CodableTwin<GSchema>.self, id: 6)?.base }
        expectSameOutcome(found, foundCodable, "fourth layout, find")
        #expect(found.failure != nil)
    }

    /// Reads the table `sc` through every path that caches a statement and checks the models, then the same
    /// through the Codable path.
    private func expectReads(
        _ db: Database, _ statement: Statement, _ expected: [GSchema], _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let query = "SELECT * FROM sc ORDER BY id"
        // The same statement, decoded row by row both ways.
        statement.reset()
        var decoded: [GSchema] = []
        var decodedCodable: [GSchema] = []
        while let row = try statement.next() {
            decoded.append(try RowDecoder().decode(GSchema.self, from: row))
            decodedCodable.append(try Path.codableDecoder.decode(GSchema.self, from: row))
        }
        #expect(decoded == expected, "\(label): a prepared statement", sourceLocation: sourceLocation)
        #expect(decodedCodable == expected, "\(label): a prepared statement (Codable)", sourceLocation: sourceLocation)
        let reads: [(String, () throws -> [GSchema])] = [
            ("fetchAll(query:)", { try db.fetchAll(GSchema.self, query: query) }),
            (
                "fetchAll(query:) Codable",
                {
                    try fetchAllDecodable(db, GSchema.self, query: query, decoder: Path.codableDecoder)
                }
            ),
            (
                "fetchAll(query:) generic",
                {
                    try fetchAllDecodable(db, GSchema.self, query: query, decoder: RowDecoder())
                }
            ),
            ("fetchAll(type)", { try db.fetchAll(GSchema.self) }),
            ("fetchAll(type) Codable", { try db.fetchAll(CodableTwin<GSchema>.self).map(\.base) }),
            ("fetchAll(request)", { try db.fetchAll(GSchema.filter(GSchema.columns.b > 0).order(GSchema.columns.id)) }),
            ("fetchAll(where:)", { try db.fetchAll(GSchema.self, where: "b > 0") }),
            ("fetchCursor(query:)", { try drain(db.fetchCursor(GSchema.self, query: query)) }),
            ("fetchCursor(request)", { try drain(db.fetchCursor(GSchema.order(GSchema.columns.id))) }),
            ("find", { try expected.compactMap { try db.find(GSchema.self, id: $0.id ?? 0) } }),
            (
                "find Codable",
                { try expected.compactMap { try db.find(CodableTwin<GSchema>.self, id: $0.id ?? 0)?.base } }
            ),
            (
                "fetchOne(query:)",
                {
                    try expected.compactMap {
                        try db.fetchOne(GSchema.self, query: "SELECT * FROM sc WHERE id = \($0.id ?? 0)")
                    }
                }
            ),
            (
                "fetchOne(request)",
                {
                    try expected.compactMap { try db.fetchOne(GSchema.filter(GSchema.columns.id == $0.id)) }
                }
            ),
        ]
        for (name, read) in reads {
            let values = try read()
            #expect(values == expected, "\(label): \(name) read \(values)", sourceLocation: sourceLocation)
            // Twice: the second read runs the cached statement.
            #expect(try read() == expected, "\(label): \(name), again", sourceLocation: sourceLocation)
        }
    }

    // MARK: Joins

    @Test("Joins of two @Table types read the columns of each table, as the Codable path does")
    func joins() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE g_note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT)")
        try db.execute(
            query: "CREATE TABLE g_tag (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL, title TEXT NOT NULL)")
        let notes = [
            GNote(id: 1, title: "note 1", body: "b1"), GNote(id: 2, title: "note 2", body: nil),
            GNote(id: 3, title: "note 3", body: ""),
        ]
        let tags = [
            GTag(id: 10, noteId: 1, title: "tag 10"), GTag(id: 11, noteId: 1, title: "tag 11"),
            GTag(id: 12, noteId: 2, title: "tag 12"),
        ]
        for note in notes { try db.insert(note) }
        for tag in tags { try db.insert(tag) }

        let pairs = try db.fetchAll(
            GNote.joining(GTag.self, on: GTag.columns.noteId == GNote.columns.id).order(GTag.columns.id))
        #expect(pairs.map(\.0) == [notes[0], notes[0], notes[1]])
        #expect(pairs.map(\.1) == tags)
        let twinPairs = try db.fetchAll(
            CodableTwin<GNote>.joining(CodableTwin<GTag>.self, on: GTag.columns.noteId == GNote.columns.id)
                .order(GTag.columns.id))
        expectIdentical(pairs.map(\.0), twinPairs.map(\.0.base))
        expectIdentical(pairs.map(\.1), twinPairs.map(\.1.base))

        // The tag first, then the note: the split follows the tables, not the order of the models.
        let swapped = try db.fetchAll(
            GNote.self, GTag.self,
            query: "SELECT g_tag.*, g_note.* FROM g_tag JOIN g_note ON g_tag.noteId = g_note.id ORDER BY g_tag.id")
        #expect(swapped.map(\.0) == [notes[0], notes[0], notes[1]])
        #expect(swapped.map(\.1) == tags)

        let left = try db.fetchAll(
            GNote.leftJoining(GTag.self, on: GTag.columns.noteId == GNote.columns.id)
                .order(GNote.columns.id, GTag.columns.id))
        #expect(left.map(\.0.id) == [1, 1, 2, 3])
        #expect(left.map(\.1) == tags.map { Optional($0) } + [nil])
        let twinLeft = try db.fetchAll(
            CodableTwin<GNote>.leftJoining(CodableTwin<GTag>.self, on: GTag.columns.noteId == GNote.columns.id)
                .order(GNote.columns.id, GTag.columns.id))
        expectIdentical(left.map(\.0), twinLeft.map(\.0.base))
        expectIdentical(left.map(\.1), twinLeft.map { $0.1?.base })

        // A self-join: each alias's columns.
        let selfJoin = try db.fetchAll(
            GNote.self, GNote.self,
            query: "SELECT a.*, b.* FROM g_note a JOIN g_note b ON b.id = a.id + 1 ORDER BY a.id")
        #expect(selfJoin.map(\.0) == [notes[0], notes[1]])
        #expect(selfJoin.map(\.1) == [notes[1], notes[2]])

        // A join whose second table lacks a column: the same error both ways.
        let bad = outcome {
            try db.fetchAll(
                GNote.self, GTag.self,
                query: "SELECT g_note.*, g_tag.id, g_tag.title FROM g_note JOIN g_tag ON g_tag.noteId = g_note.id")
        }
        let badTwin = outcome {
            try db.fetchAll(
                CodableTwin<GNote>.self, CodableTwin<GTag>.self,
                query: "SELECT g_note.*, g_tag.id, g_tag.title FROM g_note JOIN g_tag ON g_tag.noteId = g_note.id"
            ).map { ($0.0.base, $0.1.base) }
        }
        expectSameOutcome(bad, badTwin, "a join without noteId", same: { _, _ in true })
        #expect(ErrorShape(try #require(bad.failure)).subject == "noteId")
    }

    // MARK: Which path runs

    @Test("Reads go through init(row:) wherever a GeneratedRecord is read, and through init(from:) when told to")
    func generatedReaderRuns() throws {
        let db = try makeDatabase()
        try db.execute(query: GProbe.createTable)
        try db.execute(query: GNote.createTableSQL)
        try db.execute(query: "INSERT INTO probe (id, name, writer) VALUES (1, 'one', 'sql'), (2, 'two', 'sql')")
        try db.execute(query: "INSERT INTO g_note (id, title) VALUES (1, 'n')")
        let query = "SELECT * FROM probe ORDER BY id"

        let statement = try db.prepare(query: query)
        let row = try #require(try statement.next())
        #expect(try RowDecoder().decode(GProbe.self, from: row).reader == "generated")
        #expect(try Path.codableDecoder.decode(GProbe.self, from: row).reader == "codable")
        #expect(try RowDecoder().decode(GProbe.self, from: row).reader == "generated")
        #expect(try RowDecoder().decode(GProbe.self, from: row).name == "one")

        let reads: [(String, () throws -> [GProbe])] = [
            ("fetchAll(query:)", { try db.fetchAll(GProbe.self, query: query) }),
            (
                "fetchAll(query:) generic",
                {
                    try fetchAllDecodable(db, GProbe.self, query: query, decoder: RowDecoder())
                }
            ),
            ("fetchOne(query:)", { [try db.fetchOne(GProbe.self, query: query)].compactMap { $0 } }),
            ("fetchCursor(query:)", { try drain(db.fetchCursor(GProbe.self, query: query)) }),
            ("find", { [try db.find(GProbe.self, id: 1), try db.find(GProbe.self, id: 2)].compactMap { $0 } }),
            ("fetchAll(type)", { try db.fetchAll(GProbe.self) }),
            ("fetchAll(where:)", { try db.fetchAll(GProbe.self, where: "id > 0") }),
            ("fetchOne(where:)", { [try db.fetchOne(GProbe.self, where: "id = 1")].compactMap { $0 } }),
            ("fetchAll(request)", { try db.fetchAll(GProbe.order(Column("id"))) }),
            ("fetchOne(request)", { [try db.fetchOne(GProbe.filter(Column("id") == 1))].compactMap { $0 } }),
            ("fetchCursor(request)", { try drain(db.fetchCursor(GProbe.order(Column("id")))) }),
            (
                "join",
                {
                    try db.fetchAll(GProbe.joining(GNote.self, on: GNote.columns.id == Column("id"))).map(\.0)
                }
            ),
            (
                "self-join",
                {
                    try db.fetchAll(
                        GProbe.self, GProbe.self, query: "SELECT a.*, b.* FROM probe a JOIN probe b ON b.id = a.id"
                    ).flatMap { [$0.0, $0.1] }
                }
            ),
        ]
        for (name, read) in reads {
            let values = try read()
            #expect(!values.isEmpty, "\(name) read nothing")
            #expect(values.allSatisfy { $0.reader == "generated" }, "\(name) read \(values.map(\.reader))")
            #expect(Set(values.map(\.name)).isSubset(of: ["one", "two"]), "\(name) read \(values.map(\.name))")
        }

        // The decoder's flag, where the API takes a decoder, chooses init(from:).
        let codableReads: [(String, () throws -> [GProbe])] = [
            (
                "fetchAll(query:) generic",
                {
                    try fetchAllDecodable(db, GProbe.self, query: query, decoder: Path.codableDecoder)
                }
            ),
            (
                "fetchOne(query:)",
                {
                    [try db.fetchOne(GProbe.self, query: query, decoder: Path.codableDecoder)].compactMap { $0 }
                }
            ),
            (
                "fetchCursor(query:)",
                { try drain(db.fetchCursor(GProbe.self, query: query, decoder: Path.codableDecoder)) }
            ),
        ]
        for (name, read) in codableReads {
            let values = try read()
            #expect(!values.isEmpty, "\(name) read nothing")
            #expect(values.allSatisfy { $0.reader == "codable" }, "\(name) read \(values.map(\.reader))")
        }
    }

    @Test("Writes go through encode(to: RecordParameters) wherever a GeneratedRecord is bound")
    func generatedWriterRuns() throws {
        let db = try makeDatabase()
        try db.execute(query: GProbe.createTable)
        let insert = "INSERT INTO probe (id, name, writer) VALUES (:id, :name, :writer)"
        func writer(_ id: Int64) throws -> String? {
            try db.fetchOne(String.self, query: "SELECT writer FROM probe WHERE id = \(id)")
        }

        let statement = try db.prepare(query: insert)
        try StatementEncoder().encode(GProbe(id: 1, name: "a"), to: statement)
        try statement.perform()
        #expect(try writer(1) == "generated")
        try Path.codableEncoder.encode(GProbe(id: 2, name: "b"), to: statement)
        try statement.perform()
        #expect(try writer(2) == "codable")
        try StatementEncoder().encode(GProbe(id: 3, name: "c"), to: statement)
        try statement.perform()
        #expect(try writer(3) == "generated")

        try db.execute(query: insert, parameters: GProbe(id: 4, name: "d"))
        #expect(try writer(4) == "generated")
        try db.execute(query: insert, parameters: GProbe(id: 5, name: "e"), encoder: Path.codableEncoder)
        #expect(try writer(5) == "codable")

        var probe = GProbe(id: nil, name: "f")
        try db.insert(&probe)
        #expect(probe.id == 6)
        #expect(probe.reader == "generated")  // read back from the inserted row
        #expect(try writer(6) == "generated")
        try db.insert(GProbe(id: 7, name: "g"))
        #expect(try writer(7) == "generated")
        try db.execute(query: "UPDATE probe SET writer = 'sql'")
        try db.update(GProbe(id: 7, name: "h"))
        #expect(try writer(7) == "generated")
        var upserted = GProbe(id: 1, name: "i")
        try db.upsert(&upserted)
        #expect(try writer(1) == "generated")
        #expect(try db.find(GProbe.self, id: 1)?.name == "i")
        #expect(try writer(2) == "sql")
    }
}

extension GNote {
    static let createTableSQL = "CREATE TABLE g_note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT)"
}
