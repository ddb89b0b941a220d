import Foundation
import Strata
import Testing

/// A third table for three-model joins: who wrote a note.
struct QAuthor: Model, Equatable {
    static let tableName = "author"
    var id: Int64?
    var name: String
}

@Suite("Query: joins decode several models from one row")
struct JoinTests {
    let tagOnNote = Column("noteId", table: QTag.self) == Column("id")

    @Test func handWrittenSQLSplitsClashingColumnNamesByTable() throws {
        let db = try QueryFixtures.database()
        let pairs = try db.fetchAll(
            QNote.self, QTag.self,
            query: "SELECT note.*, tag.* FROM note JOIN tag ON tag.noteId = note.id ORDER BY tag.id")
        #expect(pairs.map(\.0.id) == [1, 1, 2])
        #expect(pairs.map(\.1.id) == [1, 2, 3])
        #expect(pairs.map(\.1.name) == ["swift", "lang", "db"])
        #expect(pairs[2].0.content == "sqlite is small")
    }

    @Test func theModelsMayComeInAnyOrderInTheRow() throws {
        let db = try QueryFixtures.database()
        let pairs = try db.fetchAll(
            QNote.self, QTag.self,
            query: "SELECT tag.*, note.* FROM tag JOIN note ON tag.noteId = note.id WHERE tag.name = :name",
            parameters: ["name": "db"])
        #expect(pairs.count == 1)
        #expect(pairs.first?.0.id == 2)
        #expect(pairs.first?.1.id == 3)
    }

    @Test func aSelfJoinSplitsBetweenItsAliases() throws {
        let db = try QueryFixtures.database()
        let pairs = try db.fetchAll(
            QNote.self, QNote.self,
            query: "SELECT a.*, b.* FROM note a JOIN note b ON b.id = a.id + 1 WHERE a.id <= 2 ORDER BY a.id")
        #expect(pairs.map(\.0.id) == [1, 2])
        #expect(pairs.map(\.1.id) == [2, 3])
        #expect(pairs.map(\.1.content) == ["sqlite is small", "rainy day"])
    }

    @Test func threeModelsAtOnce() throws {
        let db = try QueryFixtures.database()
        try db.execute(query: "CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.insert(QAuthor(id: 1, name: "Ada"))
        let triples = try db.fetchAll(
            QNote.self, QTag.self, QAuthor.self,
            query: """
                SELECT note.*, tag.*, author.* FROM note JOIN tag ON tag.noteId = note.id
                JOIN author ON author.id = 1 ORDER BY tag.id
                """)
        #expect(triples.map(\.0.id) == [1, 1, 2])
        #expect(triples.map(\.1.name) == ["swift", "lang", "db"])
        #expect(triples.map(\.2.name) == ["Ada", "Ada", "Ada"])
        let request = QNote.joining(QTag.self, on: tagOnNote)
            .joining(QAuthor.self, on: Column("id", table: QAuthor.self) == 1)
            .order(Column("id", table: QTag.self))
        let fromRequest = try db.fetchAll(request)
        #expect(fromRequest.map(\.1.id) == [1, 2, 3])
        #expect(fromRequest.map(\.2.id) == [1, 1, 1])
    }

    @Test func aJoinRequestQualifiesColumnsSoTheyAreNeverAmbiguous() throws {
        let db = try QueryFixtures.database()
        let request = QNote.joining(QTag.self, on: tagOnNote)
            .filter(Column("id") <= 2)
            .order(Column("id", table: QTag.self).desc)
        #expect(
            request.sql
                == #"SELECT "note".*, NULL AS "strata_join_separator", "tag".* FROM "note" "#
                + #"JOIN "tag" ON "tag"."noteId" = "note"."id" "#
                + #"WHERE "note"."id" <= ? ORDER BY "tag"."id" DESC"#)
        let pairs = try db.fetchAll(request)
        #expect(pairs.map(\.1.name) == ["db", "lang", "swift"])
        #expect(pairs.map(\.0.id) == [2, 1, 1])
        let filtered = try db.fetchAll(
            QNote.joining(QTag.self, on: tagOnNote).filter(Column("name", table: QTag.self) == "db"))
        #expect(filtered.map(\.0.content) == ["sqlite is small"])
    }

    @Test func aLeftJoinGivesNilWhereNoRowMatched() throws {
        let db = try QueryFixtures.database()
        let pairs = try db.fetchAll(
            QNote.leftJoining(QTag.self, on: tagOnNote).order(Column("id"), Column("id", table: QTag.self)))
        #expect(pairs.map(\.0.id) == [1, 1, 2, 3, 4, 5])
        #expect(pairs.map { $0.1?.name } == ["swift", "lang", "db", nil, nil, nil])
        let limited = try db.fetchAll(QNote.leftJoining(QTag.self, on: tagOnNote).filter(Column("id") == 3).limit(1))
        #expect(limited.count == 1)
        #expect(limited.first?.1 == nil)
    }

    @Test func aJoinWhoseSecondTableHasNoColumnsInTheRowThrows() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.unknownColumn) {
            _ = try db.fetchAll(
                QNote.self, QTag.self, query: "SELECT note.* FROM note JOIN tag ON tag.noteId = note.id")
        }
        #expect(error.text.contains(#"no columns of table "tag""#))
    }

    @Test func aModelOnAViewJoinsThroughARequestAndThroughSQL() throws {
        let db = try QueryFixtures.database()
        try db.execute(query: "CREATE VIEW happyNote AS SELECT * FROM note WHERE mood = 'happy'")
        let pairs = try db.fetchAll(
            QHappyNote.joining(QTag.self, on: Column("noteId", table: QTag.self) == Column("id")).order(
                Column("id", table: QTag.self)))
        #expect(pairs.map(\.0.id) == [1, 1, 2])
        #expect(pairs.map(\.1.name) == ["swift", "lang", "db"])
        let handWritten = try db.fetchAll(
            QHappyNote.self, QTag.self,
            query: "SELECT happyNote.*, tag.* FROM happyNote JOIN tag ON tag.noteId = happyNote.id ORDER BY tag.id")
        #expect(handWritten.map(\.0.id) == [1, 1, 2])
        #expect(handWritten.map(\.1.id) == [1, 2, 3])
        // The view beside its own base table: both report "note" as the table of their columns.
        let beside = try db.fetchAll(
            QNote.self, QHappyNote.self,
            query: "SELECT note.*, happyNote.* FROM note JOIN happyNote ON happyNote.id = note.id + 1 ORDER BY note.id")
        #expect(beside.map(\.0.id) == [1, 3])
        #expect(beside.map(\.1.id) == [2, 4])
    }

    @Test func aSelfJoinRequestNamesTheJoinedTableByAnAlias() throws {
        let db = try QueryFixtures.database()
        let next = QNote.aliased("next")
        let request = QNote.joining(next, on: Column("id", table: next) == Column("id") + 1)
            .filter(Column("mood", table: next) == "happy")
            .order(Column("id"))
        #expect(request.sql.contains(#"JOIN "note" AS "next""#))
        let pairs = try db.fetchAll(request)
        #expect(pairs.map(\.0.id) == [1, 3])
        #expect(pairs.map(\.1.id) == [2, 4])
        #expect(pairs.map(\.1.content) == ["sqlite is small", "Swift concurrency"])
        let previous = QNote.aliased("previous")
        let maybe = try db.fetchAll(
            QNote.leftJoining(previous, on: Column("id", table: previous) == Column("id") - 1).order(Column("id")))
        #expect(maybe.map(\.0.id) == [1, 2, 3, 4, 5])
        #expect(maybe.map(\.1?.id) == [nil, 1, 2, 3, 4])
    }

    @Test func aSelfJoinWithoutAnAliasSaysToAddOne() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.invalidArgument) {
            _ = try db.fetchAll(QNote.joining(QNote.self, on: Column("id") == Column("id")))
        }
        #expect(error.text.contains("aliased"))
    }
}

/// The happy notes, through a view.
struct QHappyNote: Model, Equatable {
    static let tableName = "happyNote"
    var id: Int64?
    var content: String
    var mood: String
    var score: Int
    var archivedAt: Date?
}
