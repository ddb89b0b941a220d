import Foundation
import Strata
import Testing

/// A row of a link table whose primary key has two columns; the model names one of them as its key.
private struct NoteTag: Model, Equatable {
    static let tableName = "noteTag"
    static let primaryKey = "noteId"
    var noteId: Int64
    var tagId: Int64
    var weight: Int
}

/// The same table, WITHOUT ROWID.
private struct CompactNoteTag: Model, Equatable {
    static let tableName = "compactNoteTag"
    static let primaryKey = "noteId"
    var noteId: Int64
    var tagId: Int64
    var weight: Int
}

@Suite("Query: a request that orders or limits changes exactly the rows it would fetch")
struct OrderedWriteTests {
    private func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE noteTag (noteId INTEGER NOT NULL, tagId INTEGER NOT NULL, weight INTEGER NOT NULL,
                                      PRIMARY KEY (noteId, tagId));
                CREATE TABLE compactNoteTag (noteId INTEGER NOT NULL, tagId INTEGER NOT NULL, weight INTEGER NOT NULL,
                                             PRIMARY KEY (noteId, tagId)) WITHOUT ROWID;
                INSERT INTO noteTag VALUES (1, 3, 0), (1, 1, 0), (1, 2, 0), (2, 1, 0);
                INSERT INTO compactNoteTag SELECT * FROM noteTag;
                """)
        return db
    }

    private func remaining(_ table: String, in db: Database) throws -> [String] {
        try db.fetchAll(
            String.self, query: "SELECT noteId || '-' || tagId || ':' || weight FROM \(table) ORDER BY noteId, tagId")
    }

    @Test func anOrderedLimitedDeleteDeletesTheRowItWouldFetch() throws {
        let db = try database()
        let request = NoteTag.filter(Column("noteId") == 1).order(Column("tagId")).limit(1)
        #expect(try db.fetchAll(request) == [NoteTag(noteId: 1, tagId: 1, weight: 0)])
        #expect(try db.deleteAll(request) == 1)
        #expect(try remaining("noteTag", in: db) == ["1-2:0", "1-3:0", "2-1:0"])
    }

    @Test func anOrderedLimitedUpdateUpdatesTheRowItWouldFetch() throws {
        let db = try database()
        let request = NoteTag.filter(Column("noteId") == 1).order(Column("tagId").desc).limit(1)
        #expect(try db.updateAll(request, Column("weight").set(to: 9)) == 1)
        #expect(try remaining("noteTag", in: db) == ["1-1:0", "1-2:0", "1-3:9", "2-1:0"])
    }

    @Test func theFetchingWritesChangeAndReturnTheRowsTheRequestSelects() throws {
        let db = try database()
        let updated = try db.updateAndFetchAll(
            NoteTag.filter(Column("noteId") == 1).order(Column("tagId")).limit(2), Column("weight").set(to: 5))
        #expect(Set(updated.map(\.tagId)) == [1, 2])
        let deleted = try db.deleteAndFetchAll(NoteTag.order(Column("noteId").desc, Column("tagId")).limit(2))
        #expect(Set(deleted.map { [$0.noteId, $0.tagId] }) == [[2, 1], [1, 1]])
        #expect(try remaining("noteTag", in: db) == ["1-2:5", "1-3:0"])
    }

    @Test func aWithoutRowidTableIsChangedByItsWholePrimaryKey() throws {
        let db = try database()
        let request = CompactNoteTag.filter(Column("noteId") == 1).order(Column("tagId")).limit(1)
        #expect(try db.deleteAll(request) == 1)
        #expect(try db.updateAll(request, Column("weight").set(to: 7)) == 1)
        #expect(try remaining("compactNoteTag", in: db) == ["1-2:7", "1-3:0", "2-1:0"])
    }

    @Test func aTableWhoseColumnsShadowRowidStillChangesOneRow() throws {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE noteTag (noteId INTEGER NOT NULL, tagId INTEGER NOT NULL, weight INTEGER NOT NULL,
                                      rowid INTEGER, PRIMARY KEY (noteId, tagId));
                INSERT INTO noteTag VALUES (1, 3, 0, 7), (1, 1, 0, 7), (1, 2, 0, 7);
                """)
        #expect(try db.deleteAll(NoteTag.order(Column("tagId")).limit(1)) == 1)
        #expect(try remaining("noteTag", in: db) == ["1-2:0", "1-3:0"])
    }

    private struct KeyedSetting: Model, Equatable {
        static let tableName = "setting"
        static let primaryKey = "key"
        var key: String
        var rank: Int
    }

    @Test func aWithoutRowidTableIsChosenByItsPrimaryKey() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE setting (key TEXT PRIMARY KEY, rank INTEGER NOT NULL) WITHOUT ROWID")
        for (key, rank) in [("a", 3), ("b", 1), ("c", 2)] { try db.insert(KeyedSetting(key: key, rank: rank)) }
        #expect(try db.updateAll(KeyedSetting.order(Column("rank")).limit(1), Column("rank").set(to: 10)) == 1)
        #expect(try db.deleteAll(KeyedSetting.order(Column("rank").desc).limit(2)) == 2)
        #expect(try db.fetchAll(KeyedSetting.all()) == [KeyedSetting(key: "c", rank: 2)])
    }
}
