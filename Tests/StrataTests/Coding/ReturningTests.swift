import Foundation
import StrataRecord
import Testing

@testable import Strata

private struct Entry: Model, Equatable {
    static let tableName = "note"
    var id: Int64?
    var content: String
    var score: Int
}

@Table("note")
private struct TableEntry: Codable, Equatable {
    var id: Int64?
    var content: String
    var score: Int
}

/// A snake_case model: `authorName` is the column `author_name`.
private struct Post: Model, Equatable {
    static let tableName = "post"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var authorName: String
    var likeCount: Int
}

/// A non-optional `content`: a row whose content is NULL does not decode.
private struct StrictEntry: Decodable, Equatable {
    var id: Int64
    var content: String
}

/// Reads `content` as an Int: the TEXT of the column never decodes.
private struct NumericEntry: Decodable, Equatable {
    var id: Int64
    var content: Int
}

private func notesDatabase(path: String? = nil) throws -> Database {
    let db = try path.map { try Database(path: $0) } ?? Database()
    try db.execute(
        query: """
            CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL UNIQUE, score INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE post (id INTEGER PRIMARY KEY, author_name TEXT NOT NULL, like_count INTEGER NOT NULL);
            """)
    return db
}

private func contents(in db: Database) throws -> [String] {
    try db.fetchAll(String.self, query: "SELECT content FROM note ORDER BY id")
}

/// Inserts two rows, the second of which violates the UNIQUE constraint of the failure suite's fixture.
private let duplicate = "INSERT INTO note (content) VALUES ('new'), ('taken') RETURNING *"
private let insertThree = "INSERT INTO note (content, score) VALUES (:a, 1), (:b, 2), (:c, 3) RETURNING *"
private var abc: [String: (any DatabaseValueConvertible)?] { ["a": "a", "b": "b", "c": "c"] }

@Suite("Coding: the rows of INSERT, UPDATE and DELETE ... RETURNING decode as a SELECT's")
struct ReturningTests {
    @Test func fetchAllDecodesEveryRowWritten() throws {
        let db = try notesDatabase()
        let notes = try db.fetchAll(Entry.self, query: insertThree, parameters: abc)
        #expect(
            notes == [
                Entry(id: 1, content: "a", score: 1), Entry(id: 2, content: "b", score: 2),
                Entry(id: 3, content: "c", score: 3),
            ])
        #expect(try db.fetchAll(Entry.self) == notes)
        #expect(try db.changes == 3)
    }

    @Test func fetchAllWithEncodableParameters() throws {
        let db = try notesDatabase()
        struct Parameters: Encodable { var a = "x", b = "y", c = "z" }
        let notes = try db.fetchAll(Entry.self, query: insertThree, parameters: Parameters())
        #expect(notes.map(\.content) == ["x", "y", "z"])
        #expect(notes.map(\.id) == [1, 2, 3])
    }

    @Test func tableModelsDecodeTheRowsWritten() throws {
        let db = try notesDatabase()
        let notes = try db.fetchAll(TableEntry.self, query: insertThree, parameters: ["a": "a", "b": "b", "c": "c"])
        #expect(
            notes == [
                TableEntry(id: 1, content: "a", score: 1), TableEntry(id: 2, content: "b", score: 2),
                TableEntry(id: 3, content: "c", score: 3),
            ])
        let one = try db.fetchOne(
            TableEntry.self, query: "INSERT INTO note (content) VALUES (:content) RETURNING *",
            parameters: ["content": "d"])
        #expect(one == TableEntry(id: 4, content: "d", score: 0))
        #expect(try db.fetchAll(TableEntry.self).count == 4)
    }

    @Test func snakeCaseModelsDecodeThroughTheirKeyStrategy() throws {
        let db = try notesDatabase()
        let posts = try db.fetchAll(
            Post.self, query: "INSERT INTO post (author_name, like_count) VALUES ('ada', 3), ('grace', 5) RETURNING *")
        #expect(
            posts == [Post(id: 1, authorName: "ada", likeCount: 3), Post(id: 2, authorName: "grace", likeCount: 5)])
        let updated = try db.fetchOne(
            Post.self, query: "UPDATE post SET like_count = like_count + 1 WHERE author_name = :name RETURNING *",
            parameters: ["name": "grace"])
        #expect(updated == Post(id: 2, authorName: "grace", likeCount: 6))
    }

    @Test func updateAndDeleteReturnTheRowsTheyChanged() throws {
        let db = try notesDatabase()
        try db.execute(query: "INSERT INTO note (content, score) VALUES ('a', 1), ('b', 2), ('c', 3)")
        let raised = try db.fetchAll(
            Entry.self, query: "UPDATE note SET score = score * 10 WHERE score >= :min RETURNING *",
            parameters: ["min": 2])
        #expect(raised.sorted { $0.score < $1.score }.map(\.score) == [20, 30])
        let deleted = try db.fetchAll(Int64.self, query: "DELETE FROM note WHERE score > 10 RETURNING id")
        #expect(deleted.sorted() == [2, 3])
        #expect(try contents(in: db) == ["a"])
    }

    @Test("A write runs to its end when only its first row is read")
    func fetchOneOfAManyRowWriteWritesEveryRow() throws {
        let db = try notesDatabase()
        let first = try db.fetchOne(Entry.self, query: insertThree, parameters: abc)
        #expect(first == Entry(id: 1, content: "a", score: 1))
        #expect(try db.changes == 3)
        #expect(try contents(in: db) == ["a", "b", "c"])
        #expect(!db.isInTransaction)
        // The statement ended: it runs again, and writes again.
        let next = try db.fetchOne(Entry.self, query: insertThree, parameters: ["a": "d", "b": "e", "c": "f"])
        #expect(next?.id == 4)
        #expect(try contents(in: db) == ["a", "b", "c", "d", "e", "f"])
    }

    @Test func fetchOneOfAScalarWritesEveryRow() throws {
        let db = try notesDatabase()
        let id = try db.fetchOne(Int64.self, query: "INSERT INTO note (content) VALUES ('a'), ('b') RETURNING id")
        #expect(id == 1)
        #expect(try db.changes == 2)
        let ids = try db.fetchAll(Int64.self, query: "INSERT INTO note (content) VALUES ('c'), ('d') RETURNING id")
        #expect(ids == [3, 4])
    }

    @Test func fetchOneOfAWriteThatReturnsNoRowIsNil() throws {
        let db = try notesDatabase()
        let none = try db.fetchOne(Entry.self, query: "DELETE FROM note WHERE id = 42 RETURNING *")
        #expect(none == nil)
        #expect(!db.isInTransaction)
    }

    @Test func executeRunsAReturningWriteToItsEnd() throws {
        let db = try notesDatabase()
        try db.execute(query: insertThree, parameters: abc)
        #expect(try db.changes == 3)
        struct Parameters: Encodable { var a = "d", b = "e", c = "f" }
        try db.execute(query: insertThree, parameters: Parameters())
        try db.execute(query: "UPDATE note SET score = 0 RETURNING id")
        #expect(try db.changes == 6)
        #expect(try contents(in: db) == ["a", "b", "c", "d", "e", "f"])
    }

    @Test("A write is read to its end before the cursor is returned")
    func aCursorOverAWriteEndsItBeforeItIsReturned() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cursor.sqlite")
        let db = try notesDatabase(path: path)
        let other = try Database(path: path)
        try other.execute(query: "PRAGMA busy_timeout = 0")
        let cursor = try db.fetchCursor(Entry.self, query: insertThree, parameters: ["a": "a", "b": "b", "c": "c"])
        // Before a row is read: the rows are committed, and the write lock is free.
        #expect(try other.fetchOne(Int.self, query: "SELECT count(*) FROM note") == 3)
        try other.execute(query: "INSERT INTO note (content) VALUES ('other')")
        #expect(try cursor.next() == Entry(id: 1, content: "a", score: 1))
        #expect(try cursor.next()?.id == 2)
        #expect(try cursor.next()?.id == 3)
        #expect(try cursor.next() == nil)
        let ids = try db.fetchCursor(Int64.self, query: "DELETE FROM note WHERE content = 'other' RETURNING id")
        #expect(try ids.next() == 4)
        #expect(try ids.next() == nil)
    }

    @Test func aSelectCursorStaysLazy() throws {
        let db = try notesDatabase()
        try db.execute(query: "INSERT INTO note (content) VALUES ('a'), ('b')")
        let cursor = try db.fetchCursor(Entry.self, query: "SELECT * FROM note ORDER BY id")
        try db.execute(query: "INSERT INTO note (content) VALUES ('c')")
        // Rows are read as the cursor moves: the row inserted after it was made is among them.
        #expect(try cursor.next()?.content == "a")
        #expect(try cursor.next()?.content == "b")
        #expect(try cursor.next()?.content == "c")
    }

    @Test(arguments: [
        ("SELECT * FROM note", false),
        ("PRAGMA user_version", false),
        ("PRAGMA journal_mode = WAL", false),
        ("INSERT INTO note (content) VALUES ('a') RETURNING *", true),
        ("REPLACE INTO note (content) VALUES ('a')", true),
        ("UPDATE note SET score = 1 RETURNING id", true),
        ("DELETE FROM note RETURNING id", true),
        ("WITH n AS (SELECT 'x' AS c) INSERT INTO note (content) SELECT c FROM n RETURNING id", true),
    ])
    func statementsThatWriteRowsAreKnownFromTheirPreparation(sql: String, writes: Bool) throws {
        let db = try notesDatabase()
        #expect(try db.prepare(query: sql).writesRows == writes)
        #expect(try db.cachedStatement(query: sql).writesRows == writes)
    }

    @Test func aPragmaThatCannotRunInATransactionIsNotWrapped() throws {
        let directory = try TemporaryDirectory()
        let db = try notesDatabase(path: directory.path("journal.sqlite"))
        #expect(try db.fetchOne(String.self, query: "PRAGMA journal_mode = DELETE") == "delete")
        #expect(try db.fetchOne(String.self, query: "PRAGMA journal_mode = WAL") == "wal")
    }
}

@Suite("Coding: a RETURNING write that fails writes nothing and names its SQL")
struct ReturningFailureTests {
    private func database() throws -> Database {
        let db = try notesDatabase()
        try db.execute(query: "INSERT INTO note (content) VALUES ('taken')")
        return db
    }

    private func expectConstraintFailure(_ error: DatabaseError?, in db: Database) throws {
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.sql == duplicate)
        #expect(error.text.contains("UNIQUE constraint failed: note.content"))
        #expect(try contents(in: db) == ["taken"])
        #expect(!db.isInTransaction)
    }

    @Test func fetchAllThrowsTheConstraintViolationWithItsSQL() throws {
        let db = try database()
        let error = expectError(.uniqueViolation) { _ = try db.fetchAll(Entry.self, query: duplicate) }
        try expectConstraintFailure(error, in: db)
    }

    @Test func fetchOneThrowsTheConstraintViolationWithItsSQL() throws {
        let db = try database()
        let error = expectError(.uniqueViolation) { _ = try db.fetchOne(Entry.self, query: duplicate) }
        try expectConstraintFailure(error, in: db)
        let scalar = expectError(.uniqueViolation) { _ = try db.fetchOne(Int64.self, query: duplicate) }
        #expect(scalar?.resultCode == .constraintUnique)
    }

    @Test func executeThrowsTheConstraintViolationWithItsSQL() throws {
        let db = try database()
        let error = expectError(.uniqueViolation) { try db.execute(query: duplicate, parameters: [String: String]()) }
        try expectConstraintFailure(error, in: db)
    }

    @Test func fetchCursorThrowsTheConstraintViolationWithItsSQL() throws {
        let db = try database()
        let error = expectError(.uniqueViolation) { _ = try db.fetchCursor(Entry.self, query: duplicate) }
        try expectConstraintFailure(error, in: db)
    }

    @Test("A write whose rows cannot all be decoded is rolled back")
    func aRowThatDoesNotDecodeRollsBackTheWholeWrite() throws {
        let db = try database()
        // The second row returns a NULL content, which a String cannot hold: the first row decoded already.
        let insert =
            "INSERT INTO note (content) VALUES ('one'), ('two'), ('three') RETURNING id, nullif(content, 'two') AS content"
        #expect(throws: DecodingError.self) { _ = try db.fetchAll(StrictEntry.self, query: insert) }
        #expect(try contents(in: db) == ["taken"])
        #expect(!db.isInTransaction)
        #expect(throws: DecodingError.self) { _ = try db.fetchCursor(StrictEntry.self, query: insert) }
        #expect(try contents(in: db) == ["taken"])
        #expect(!db.isInTransaction)
        // The cached statement was reset, not left mid-way: it runs again.
        let two = "INSERT INTO note (content) VALUES ('one'), ('three') RETURNING id, nullif(content, 'two') AS content"
        #expect(
            try db.fetchAll(StrictEntry.self, query: two) == [
                StrictEntry(id: 2, content: "one"), StrictEntry(id: 3, content: "three"),
            ])
    }

    @Test func aFirstRowThatDoesNotDecodeRollsBackTheWrite() throws {
        let db = try database()
        let insert = "INSERT INTO note (content) VALUES ('one'), ('2') RETURNING id, content"
        #expect(throws: DecodingError.self) { _ = try db.fetchOne(NumericEntry.self, query: insert) }
        #expect(throws: DatabaseError.self) {
            _ = try db.fetchOne(Int.self, query: "INSERT INTO note (content) VALUES ('one') RETURNING content")
        }
        #expect(try contents(in: db) == ["taken"])
        #expect(!db.isInTransaction)
    }

    @Test func insideATransactionAWriteThatDoesNotDecodeFailsTheTransaction() throws {
        let db = try database()
        let notANumber = "INSERT INTO note (content) VALUES ('x') RETURNING id, content"
        // Rows that do not decode fail the transaction as a statement SQLite rejects does, even when caught: the
        // later statements are refused, and the transaction rolls back and throws the decoding error.
        var refusal: DatabaseError?
        #expect(throws: DecodingError.self) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO note (content) VALUES ('lost')")
                _ = Result { try db.fetchAll(NumericEntry.self, query: notANumber) }
                let refused = Result { try db.execute(query: "INSERT INTO note (content) VALUES ('refused')") }
                if case .failure(let error as DatabaseError) = refused { refusal = error }
            }
        }
        #expect(refusal?.code == .transactionAborted)
        #expect(!db.isInTransaction)
        #expect(try contents(in: db) == ["taken"])
        // A write SQLite rejects fails the transaction, as any failed statement does, even when caught.
        let error = expectError(.uniqueViolation) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO note (content) VALUES ('lost')")
                _ = Result { try db.fetchOne(Entry.self, query: duplicate) }
            }
        }
        #expect(error?.sql == duplicate)
        #expect(try contents(in: db) == ["taken"])
        // In a nested transaction, the failure rolls back that transaction alone.
        try db.transaction { db in
            try db.execute(query: "INSERT INTO note (content) VALUES ('kept')")
            #expect(throws: DecodingError.self) {
                try db.transaction { db in _ = try db.fetchOne(NumericEntry.self, query: notANumber) }
            }
        }
        #expect(try contents(in: db) == ["taken", "kept"])
    }

    @Test func aCommitThatCannotTakeItsLockThrowsInsteadOfReturningARowNotKept() throws {
        // Rollback journal: a commit needs every reader gone; one holds its read lock, and nobody waits.
        let directory = try TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let db = try notesDatabase(path: path)
        try db.execute(query: "PRAGMA journal_mode = DELETE")
        let reader = try Database(path: path)
        // Opening a file turns it to WAL; back to the rollback journal.
        try reader.execute(query: "PRAGMA journal_mode = DELETE")
        #expect(try db.fetchOne(String.self, query: "PRAGMA journal_mode") == "delete")
        try db.execute(query: "PRAGMA busy_timeout = 0")
        try db.execute(query: "INSERT INTO note (content) VALUES ('taken')")
        let select = try reader.prepare(query: "SELECT content FROM note")
        #expect(try select.next() != nil)
        let error = expectError(.busy) {
            _ = try db.fetchOne(Entry.self, query: "INSERT INTO note (content) VALUES ('a'), ('b') RETURNING *")
        }
        #expect(error?.resultCode?.primary == .busy)
        #expect(!db.isInTransaction)
        select.reset()
        #expect(try contents(in: db) == ["taken"])
        // Once the reader is done, the same call writes.
        let note = try db.fetchOne(Entry.self, query: "INSERT INTO note (content) VALUES ('a'), ('b') RETURNING *")
        #expect(note?.content == "a")
        #expect(try contents(in: reader) == ["taken", "a", "b"])
    }
}

@Suite("Query: deleteAndFetchAll and updateAndFetchAll return the rows they changed")
struct RequestReturningTests {
    private func database() throws -> Database {
        let db = try notesDatabase()
        try db.execute(query: "INSERT INTO note (content, score) VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4)")
        return db
    }

    @Test func deleteAndFetchAllReturnsTheRowsAsTheyWere() throws {
        let db = try database()
        let deleted = try db.deleteAndFetchAll(Entry.filter(Column("score") >= 3))
        #expect(
            deleted.sorted { $0.score < $1.score } == [
                Entry(id: 3, content: "c", score: 3), Entry(id: 4, content: "d", score: 4),
            ])
        #expect(try contents(in: db) == ["a", "b"])
        #expect(try db.deleteAndFetchAll(Entry.filter(Column("score") > 100)) == [])
    }

    @Test func theRequestsOrderAndLimitChooseTheRows() throws {
        let db = try database()
        let deleted = try db.deleteAndFetchAll(Entry.order(Column("score").desc).limit(2))
        #expect(Set(deleted.map(\.content)) == ["c", "d"])
        let raised = try db.updateAndFetchAll(Entry.order(Column("score")).limit(1), Column("score").set(to: 10))
        #expect(raised == [Entry(id: 1, content: "a", score: 10)])
    }

    @Test func updateAndFetchAllReturnsTheRowsAsUpdated() throws {
        let db = try database()
        let updated = try db.updateAndFetchAll(
            Entry.filter(Column("score") <= 2), Column("score").set(to: Column("score") * 10),
            Column("content").set(to: upper(Column("content"))))
        #expect(
            updated.sorted { $0.score < $1.score } == [
                Entry(id: 1, content: "A", score: 10), Entry(id: 2, content: "B", score: 20),
            ])
        #expect(try db.fetchAll(Entry.self).map(\.score) == [10, 20, 3, 4])
    }

    @Test func tableAndSnakeCaseModelsReadTheirRows() throws {
        let db = try database()
        let table = try db.updateAndFetchAll(TableEntry.filter(Column("id") == 1), Column("score").set(to: 7))
        #expect(table == [TableEntry(id: 1, content: "a", score: 7)])
        try db.execute(query: "INSERT INTO post (author_name, like_count) VALUES ('ada', 3), ('grace', 5)")
        let posts = try db.deleteAndFetchAll(Post.filter(Column("like_count") > 4))
        #expect(posts == [Post(id: 2, authorName: "grace", likeCount: 5)])
    }

    @Test func aConstraintViolationChangesNothingAndNamesItsSQL() throws {
        let db = try database()
        let error = expectError(.uniqueViolation) {
            _ = try db.updateAndFetchAll(Entry.filter(Column("score") > 2), Column("content").set(to: "a"))
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.sql?.hasPrefix("UPDATE \"note\" SET \"content\" = ?") == true)
        #expect(error?.sql?.hasSuffix(" RETURNING *") == true)
        #expect(try contents(in: db) == ["a", "b", "c", "d"])
        #expect(!db.isInTransaction)
    }

    @Test("A row that does not decode rolls the delete or update back")
    func aRowThatDoesNotDecodeRollsTheWriteBack() throws {
        let db = try database()
        // INTEGER affinity keeps 'x' as TEXT, which `score: Int` cannot read.
        #expect(throws: DecodingError.self) {
            _ = try db.updateAndFetchAll(Entry.filter(Column("score") > 1), Column("score").set(to: "x"))
        }
        #expect(try db.fetchAll(Int.self, query: "SELECT score FROM note ORDER BY id") == [1, 2, 3, 4])
        try db.execute(query: "UPDATE note SET score = 'x' WHERE id = 4")
        #expect(throws: DecodingError.self) { _ = try db.deleteAndFetchAll(Entry.filter(Column("id") >= 3)) }
        #expect(try contents(in: db) == ["a", "b", "c", "d"])
        #expect(!db.isInTransaction)
    }

    @Test func aRequestThatCannotBeRenderedThrowsAndWritesNothing() throws {
        let db = try database()
        let badName = expectError(.invalidArgument) {
            _ = try db.deleteAndFetchAll(Entry.filter(Column("sco\u{0}re") > 1))
        }
        #expect(badName?.sql?.hasPrefix("DELETE FROM \"note\"") == true)
        expectError(.invalidArgument) {
            _ = try db.updateAndFetchAll(Entry.all().limit(-1), Column("score").set(to: 0))
        }
        #expect(try db.fetchAll(Entry.self).map(\.score) == [1, 2, 3, 4])
    }

    @Test func anUpdateWithoutAssignmentsThrows() throws {
        let db = try database()
        let error = expectError(.invalidArgument) { _ = try db.updateAndFetchAll(Entry.all()) }
        #expect(error?.message == "updateAndFetchAll needs at least one column to set")
        #expect(try db.fetchAll(Entry.self).map(\.score) == [1, 2, 3, 4])
    }
}
