import Foundation
import Strata
import Testing

/// The model of the query tests: notes with a mood, an optional archive date and tags in another table.
struct QNote: Model, Equatable {
    static let tableName = "note"
    var id: Int64?
    var content: String
    var mood: String
    var score: Int
    var archivedAt: Date?
}

struct QTag: Model, Equatable {
    static let tableName = "tag"
    var id: Int64?
    var noteId: Int64
    var name: String
}

enum QueryFixtures {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    /// Five notes (ids 1...5) and tags on notes 1, 1 and 2.
    static func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, mood TEXT NOT NULL,
                                   score INTEGER NOT NULL, archivedAt TEXT);
                CREATE TABLE tag (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL REFERENCES note(id), name TEXT NOT NULL);
                """)
        let notes = [
            QNote(id: nil, content: "swift is fun", mood: "happy", score: 10, archivedAt: nil),
            QNote(id: nil, content: "sqlite is small", mood: "happy", score: 20, archivedAt: date),
            QNote(id: nil, content: "rainy day", mood: "sad", score: 5, archivedAt: nil),
            QNote(id: nil, content: "Swift concurrency", mood: "happy", score: 30, archivedAt: nil),
            QNote(id: nil, content: "bugs", mood: "sad", score: 1, archivedAt: date),
        ]
        for var note in notes { try db.insert(&note) }
        for (noteId, name) in [(1, "swift"), (1, "lang"), (2, "db")] {
            try db.insert(QTag(id: nil, noteId: Int64(noteId), name: name))
        }
        return db
    }
}
