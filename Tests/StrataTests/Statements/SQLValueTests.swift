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
