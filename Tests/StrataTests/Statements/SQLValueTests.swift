import Foundation
import Strata
import Testing

@Suite("SQL: interpolated values are bound, never spliced")
struct SQLValueTests {
    private func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, mood TEXT);
                INSERT INTO note (content, mood) VALUES ('one', 'happy'), ('two', 'sad'), ('three', NULL);
                """)
        return db
    }

    @Test func interpolatedValuesAreBoundParameters() throws {
        let db = try database()
        let mood = "happy' OR '1' = '1"
        #expect(try db.fetchAll(String.self, "SELECT content FROM note WHERE mood = \(mood)").isEmpty)
        let happy = "happy"
        #expect(try db.fetchAll(String.self, "SELECT content FROM note WHERE mood = \(happy)") == ["one"])
        let nothing: String? = nil
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM note WHERE mood IS \(nothing)") == 1)
        #expect(try db.fetchOne(String.self, "SELECT content FROM note WHERE id = \(2) AND mood = \("sad")") == "two")
    }

    @Test func identifiersAreQuotedWithQuotesDoubled() throws {
        let db = try database()
        let table = "note"
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM \(identifier: table)") == 3)
        let hostile = #"note" WHERE 0 --"#
        expectError(.sqlite) { _ = try db.fetchOne(Int.self, "SELECT count(*) FROM \(identifier: hostile)") }
        #expect(SQL("SELECT * FROM \(identifier: hostile)").description == #"SELECT * FROM "note"" WHERE 0 --""#)
    }

    @Test func namedTextAndPiecesCompose() throws {
        let db = try database()
        let condition = SQL(sql: "mood = :mood", parameters: ["mood": "sad"])
        let limit = 5
        #expect(try db.fetchAll(String.self, "SELECT content FROM note WHERE \(condition) LIMIT \(limit)") == ["two"])
        try db.execute(SQL(sql: "UPDATE note SET mood = ? WHERE id = ?", parameters: ["calm", 1]))
        #expect(try db.fetchOne(String.self, "SELECT mood FROM note WHERE id = \(1)") == "calm")
        struct Row: Decodable, Equatable { var id: Int64; var content: String }
        let rows = try db.fetchAll(Row.self, "SELECT id, content FROM note WHERE id > \(1) ORDER BY id")
        #expect(rows == [Row(id: 2, content: "two"), Row(id: 3, content: "three")])
        let cursor = try db.fetchCursor(String.self, "SELECT content FROM note WHERE id < \(3) ORDER BY id")
        #expect(try cursor.next() == "one")
        #expect(try cursor.next() == "two")
        #expect(try cursor.next() == nil)
    }

    @Test func aPreparedStatementHasItsValuesBound() throws {
        let db = try database()
        let hostile = "happy' OR '1' = '1"
        #expect(try db.prepare("SELECT content FROM note WHERE mood = \(hostile)").next() == nil)
        let statement = try db.prepare("SELECT content, mood FROM note WHERE mood = \("sad") OR id = \(1) ORDER BY id")
        var contents: [String] = []
        while let row = try statement.next() { contents.append(try row["content"]) }
        #expect(contents == ["one", "two"])
        // A statement of its own: preparing the same SQL again gives another one.
        #expect(try db.prepare("SELECT \(1)") !== db.prepare("SELECT \(1)"))
        expectError(.unknownParameter) { _ = try db.prepare("SELECT content FROM note WHERE id = ?") }
        expectError(.sqlite) { _ = try db.prepare("SELEC \(1)") }
    }

    @Test func aCachedStatementIsReusedWithEachCallsValues() throws {
        let db = try database()
        let first = try db.cachedStatement("SELECT content FROM note WHERE id = \(1)")
        #expect(try first.next()?["content"] as String? == "one")
        first.reset()
        // The same text: the same statement, bound to this call's value.
        let second = try db.cachedStatement("SELECT content FROM note WHERE id = \(2)")
        #expect(second === first)
        #expect(try second.next()?["content"] as String? == "two")
        #expect(try second.next() == nil)
        // One still stepping is never handed out again: the next call gets a statement of its own.
        let third = try db.cachedStatement("SELECT content FROM note WHERE id > \(0) ORDER BY id")
        #expect(try third.next()?["content"] as String? == "one")
        let fourth = try db.cachedStatement("SELECT content FROM note WHERE id > \(1) ORDER BY id")
        #expect(fourth !== third)
        #expect(try fourth.next()?["content"] as String? == "two")
        #expect(try third.next()?["content"] as String? == "two")
    }

    @Test func aRequestsRawConditionBindsItsValues() throws {
        let db = try database()
        struct Note: Model, Equatable {
            static let tableName = "note"
            var id: Int64?
            var content: String
            var mood: String?
        }
        let hostile = "happy' OR '1' = '1"
        #expect(try db.fetchAll(Note.filter("mood = \(hostile)")).isEmpty)
        #expect(try db.fetchAll(Note.filter("mood = \("sad")")).map(\.content) == ["two"])
        let request = Note.all().filter("id > \(1)").order(Column("id"))
        #expect(request.sql(for: SQLiteDialect()).contains("?"))
        #expect(try db.fetchAll(request).map(\.content) == ["two", "three"])
    }

    @Test(
        "a value or name interpolated inside quotes or a comment is refused, where it would be read as text",
        arguments: [
            SQL("SELECT content FROM note WHERE mood = '\("happy")'"),
            SQL("SELECT content FROM note WHERE mood = 'it''s \("happy")'"),
            SQL("SELECT content FROM note WHERE mood = \"\("happy")\""),
            SQL("SELECT content FROM note WHERE mood = [\("happy")]"),
            SQL("SELECT content FROM note WHERE mood = `\("happy")`"),
            SQL("SELECT content FROM note /* \("happy") */ WHERE 1"),
            SQL("SELECT content FROM note WHERE mood = '\(identifier: "happy")'"),
        ])
    func valuesInsideQuotesAreRefused(sql: SQL) throws {
        let db = try database()
        let error = expectError(.invalidArgument) { _ = try db.fetchAll(String.self, sql) }
        #expect(error?.message.contains("inside a quoted string") == true, "\(String(describing: error))")
        #expect(error?.message.contains("happy") == false)
    }

    @Test func quotesClosedBeforeAValueLeaveItBound() throws {
        let db = try database()
        #expect(try db.fetchOne(String.self, "SELECT 'it''s ' || \("bound")") == "it's bound")
        #expect(try db.fetchAll(String.self, "SELECT \"content\" FROM note /* c */ WHERE mood = \("sad")") == ["two"])
        #expect(try db.fetchOne(String.self, "SELECT content FROM note WHERE mood = 'happy' AND id = \(1)") == "one")
    }

    @Test func aQuestionMarkWithoutAValueThrows() throws {
        let db = try database()
        let error = expectError(.unknownParameter) {
            _ = try db.fetchAll(String.self, "SELECT content FROM note WHERE id = ?")
        }
        #expect(error?.message.contains("?") == true)
        // A description shows where values go, never the values.
        let secret = "hunter2"
        #expect(
            SQL("SELECT * FROM user WHERE password = \(secret)").description == "SELECT * FROM user WHERE password = ?")
    }
}
