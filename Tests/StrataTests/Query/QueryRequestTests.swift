import Foundation
import Strata
import Testing

@Suite("Query: requests compose and run")
struct QueryRequestTests {
    @Test func theDesignExampleRendersAndRuns() throws {
        let db = try QueryFixtures.database()
        let request =
            QNote
            .filter(Column("mood") == "happy" && Column("archivedAt") == nil)
            .filter(Column("content").like("%swift%"))
            .filter([1, 2, 3, 4].contains(Column("id")))
            .filter(sql: "length(content) > :n", parameters: ["n": 3])
            .order(Column("score").desc, Column("id"))
            .limit(10, offset: 0)
        #expect(
            request.sql
                == #"SELECT "note".* FROM "note" WHERE (("note"."mood" = ?) AND ("note"."archivedAt" IS NULL)) "#
                + #"AND ("note"."content" LIKE ?) AND ("note"."id" IN (?, ?, ?, ?)) AND (length(content) > :n) "#
                + #"ORDER BY "note"."score" DESC, "note"."id" LIMIT ? OFFSET ?"#)
        #expect(try db.fetchAll(request).map(\.id) == [4, 1])
        #expect(try db.fetchOne(request)?.id == 4)
        #expect(try db.fetchCount(request) == 2)
    }

    @Test func staticEntryPointsAndChainingAgree() throws {
        let db = try QueryFixtures.database()
        #expect(try db.fetchAll(QNote.all()).count == 5)
        #expect(try db.fetchAll(QNote.order(Column("score"))).map(\.id) == [5, 3, 1, 2, 4])
        #expect(try db.fetchAll(QNote.limit(2)).count == 2)
        #expect(try db.fetchAll(QNote.limit(2, offset: 4)).count == 1)
        #expect(try db.fetchAll(QNote.filter(sql: "score > ?", parameters: [10])).map(\.id) == [2, 4])
        #expect(
            try db.fetchAll(QNote.all().order(Column("id").desc).order(Column("id").asc)).map(\.id) == [1, 2, 3, 4, 5])
        #expect(try db.fetchOne(QNote.filter(Column("id") == 99)) == nil)
        #expect(try db.fetchCount(QNote.all()) == 5)
        #expect(try db.fetchCount(QNote.limit(3)) == 3)
    }

    @Test func groupAndHaving() throws {
        let db = try QueryFixtures.database()
        struct MoodCount: Decodable, Equatable {
            var mood: String
            var total: Int
        }
        let request = QNote.select(Column("mood"), count(.all).forKey("total"))
            .group(Column("mood"))
            .having(count(.all) > 2)
        #expect(try db.fetchAll(MoodCount.self, request) == [MoodCount(mood: "happy", total: 3)])
        #expect(try db.fetchCount(QNote.select(Column("mood")).group(Column("mood"))) == 2)
    }

    @Test func aCursorDecodesOneRowAtATimeAndCanStopEarly() throws {
        let db = try QueryFixtures.database()
        let cursor = try db.fetchCursor(QNote.filter(Column("mood") == "happy").order(Column("id")))
        #expect(try cursor.next()?.id == 1)
        #expect(try cursor.next()?.id == 2)
        // Stopping here leaves the connection usable, and the same request runs again from the start.
        #expect(try db.fetchAll(QNote.filter(Column("mood") == "happy").order(Column("id"))).map(\.id) == [1, 2, 4])
        let again = try db.fetchCursor(QNote.filter(Column("id") > 3).order(Column("id")))
        var ids: [Int64?] = []
        try again.forEach { ids.append($0.id) }
        #expect(ids == [4, 5])
    }

    @Test func deleteAllAndUpdateAllReturnTheRowsChanged() throws {
        let db = try QueryFixtures.database()
        try db.execute(query: "DELETE FROM tag")
        #expect(try db.updateAll(QNote.filter(Column("mood") == "sad"), Column("mood").set(to: "happy")) == 2)
        #expect(try db.fetchCount(QNote.filter(Column("mood") == "happy")) == 5)
        #expect(
            try db.updateAll(
                QNote.filter(Column("id") == 1), Column("score").set(to: Column("score") + 1),
                Column("archivedAt").set(to: nil)) == 1)
        #expect(try db.find(QNote.self, id: 1)?.score == 11)
        // Order and limit choose the rows, as in a fetch.
        #expect(try db.updateAll(QNote.order(Column("score").desc).limit(2), Column("mood").set(to: "top")) == 2)
        #expect(try db.fetchAll(QNote.filter(Column("mood") == "top").order(Column("id"))).map(\.id) == [2, 4])
        #expect(try db.deleteAll(QNote.filter(Column("id") > 3)) == 2)
        #expect(try db.deleteAll(QNote.order(Column("id")).limit(1)) == 1)
        #expect(try db.fetchAll(QNote.all().order(Column("id"))).map(\.id) == [2, 3])
        #expect(try db.deleteAll(QNote.filter(Column("id") > 100)) == 0)
        #expect(try db.deleteAll(QNote.all()) == 2)
    }

    @Test func requestsRunInsidePoolAndQueueBlocks() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let seed = try Database(path: path)
        try seed.execute(
            query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT, mood TEXT, score INTEGER, archivedAt TEXT)"
        )
        seed.close()
        let pool = try DatabasePool(path: path, readers: 2)
        let happy = QNote.filter(Column("mood") == "happy")
        try await pool.write { db in
            for score in 1...3 {
                try db.insert(QNote(id: nil, content: "n\(score)", mood: score == 2 ? "sad" : "happy", score: score))
            }
            #expect(try db.fetchCount(happy) == 2)
        }
        let notes = try await pool.read { db in try db.fetchAll(happy.order(Column("score").desc)) }
        #expect(notes.map(\.score) == [3, 1])
        let deleted = try await pool.write { db in try db.deleteAll(happy) }
        #expect(deleted == 2)
        await pool.close()
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute(
                query:
                    "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT, mood TEXT, score INTEGER, archivedAt TEXT)"
            )
            try db.insert(QNote(id: nil, content: "x", mood: "happy", score: 1))
        }
        #expect(try await queue.read { db in try db.fetchCount(happy) } == 1)
        await queue.close()
    }

    // MARK: Bad input

    @Test func aMissingColumnIsSQLitesErrorNamingTheSQL() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.sqlite) { _ = try db.fetchAll(QNote.filter(Column("nope") == 1)) }
        #expect(error.text.contains("no such column: note.nope"))
        #expect(error?.sql?.contains(#""note"."nope""#) == true)
    }

    @Test func anIdentifierWithQuotesIsJustAMissingColumn() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.sqlite) { _ = try db.fetchAll(QNote.filter(Column(#"id" OR 1=1 --"#) == 1)) }
        #expect(error.text.contains("no such column"))
        #expect(try db.fetchCount(QNote.all()) == 5)
    }

    @Test func aNegativeLimitThrowsAndRunsNothing() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.invalidArgument) { _ = try db.fetchAll(QNote.limit(-1)) }
        #expect(error.text.contains("negative"))
        expectError(.invalidArgument) { _ = try db.fetchAll(QNote.limit(1, offset: -2)) }
        expectError(.invalidArgument) { try db.deleteAll(QNote.order(Column("id")).limit(-1)) }
        #expect(try db.fetchCount(QNote.all()) == 5)
    }

    @Test func anEmptyContainsMatchesNothing() throws {
        let db = try QueryFixtures.database()
        #expect(try db.fetchAll(QNote.filter([String]().contains(Column("mood")))).isEmpty)
        #expect(try db.deleteAll(QNote.filter([Int]().contains(Column("id")))) == 0)
    }

    @Test func twoFragmentsGivingOneNameTwoValuesThrow() throws {
        let db = try QueryFixtures.database()
        let request = QNote.filter(sql: "score > :n", parameters: ["n": 1]).filter(sql: "id < :n", parameters: ["n": 4])
        expectError(.invalidArgument) { _ = try db.fetchAll(request) }
        let missing = QNote.filter(sql: "score > :n")
        expectError(.unknownParameter) { _ = try db.fetchAll(missing) }
    }

    @Test func updateAllWithoutAssignmentsThrows() throws {
        let db = try QueryFixtures.database()
        expectError(.invalidArgument) { try db.updateAll(QNote.all()) }
    }

    @Test func aStatementReusedByRequestsKeepsNoValueFromItsLastRun() throws {
        let db = try QueryFixtures.database()
        let first = QNote.filter(Column("id") == 1)
        let second = QNote.filter(Column("id") == 2)
        #expect(first.sql == second.sql)
        #expect(try db.fetchOne(first)?.id == 1)
        #expect(try db.fetchOne(second)?.id == 2)
        #expect(try db.fetchOne(first)?.id == 1)
    }
}
