import Foundation
import Strata
import Testing

/// The Codable example of README.md, run as written.
@Suite("README Codable example")
struct ReadmeExampleTests {
    struct Author: Codable, Equatable {
        var name: String
        var email: String?
    }
    enum Mood: String, Codable { case happy, sad }

    struct Note: Codable {
        var id: Int64?
        var createdAt: Date
        var content: String
        var mood: Mood
        var author: Author
        var tags: [String]
        var archivedAt: Date?
    }

    @Test func theExampleRunsAsDocumented() throws {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT, content TEXT, mood TEXT,
                                   author TEXT, tags TEXT, archivedAt TEXT)
                """)
        let note = Note(
            id: nil, createdAt: Date(timeIntervalSince1970: 1_795_376_460), content: "Hello", mood: .happy,
            author: Author(name: "Ada", email: nil), tags: ["swift", "sqlite"], archivedAt: nil)
        let insert = try db.prepare(
            query: """
                INSERT INTO note (createdAt, content, mood, author, tags, archivedAt)
                VALUES (:createdAt, :content, :mood, :author, :tags, :archivedAt)
                """)
        try StatementEncoder().encode(note, to: insert)
        try insert.perform()

        let stored = try db.prepare(query: "SELECT createdAt, mood, author, tags, archivedAt FROM note")
        let row = try #require(try stored.next())
        #expect(try row.createdAt as String == "2026-11-22 19:41:00.000")
        #expect(try row.mood as String == "happy")
        #expect(try row.author as String == #"{"name":"Ada"}"#)
        #expect(try row.tags as String == #"["swift","sqlite"]"#)
        #expect(try row.archivedAt as String? == nil)

        let notes = try db.fetchAll(
            Note.self, query: "SELECT * FROM note WHERE mood = :mood", parameters: ["mood": "happy"])
        #expect(notes.map(\.author) == [Author(name: "Ada", email: nil)])
        #expect(
            try db.fetchOne(Note.self, query: "SELECT * FROM note WHERE id = :id", parameters: ["id": 1])?.tags
                == ["swift", "sqlite"])
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM note") == 1)
        #expect(try db.fetchAll(String.self, query: "SELECT json_extract(author, '$.name') FROM note") == ["Ada"])
        let cursor = try db.fetchCursor(Note.self, query: "SELECT * FROM note")
        #expect(try cursor.next()?.content == "Hello")
        #expect(try cursor.next() == nil)
    }
}
