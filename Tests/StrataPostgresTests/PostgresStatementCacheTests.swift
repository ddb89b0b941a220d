import Foundation
import Strata
import StrataPostgres
import Testing

/// StrataPostgres keeps the record SQL of each model type between calls. Anything it keeps must stay true: two
/// types on one table, a model whose keys vary from value to value, and a table changed between two calls must
/// all give what an uncached call gives.
@Suite("PostgreSQL statement cache", .postgresServer)
struct PostgresStatementCacheTests {
    /// The `note` table seen through two of its columns, under the same table name as ``Note``.
    struct NoteContent: Model, Equatable {
        static let tableName = "note"
        var id: Int64?
        var content: String
    }

    /// A model whose `encode(to:)` leaves out a nil `mood`, so that its keys vary from one value to the next.
    struct SparseNote: Model, Equatable {
        static let tableName = "sparse"
        var id: Int64
        var content: String
        var mood: String?

        enum CodingKeys: String, CodingKey { case id, content, mood }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(content, forKey: .content)
            if let mood { try container.encode(mood, forKey: .mood) }
        }
    }

    @Test("two model types with the same table name each write and read their own columns")
    func twoTypesOneTable() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let created = Date(timeIntervalSince1970: 1_790_000_000)
            // Alternately, so that each type's statements follow the other's.
            let (note, content, note2) = try await pool.write { db in
                var note = Note(id: nil, createdAt: created, content: "full", mood: "happy")
                try await db.insert(&note)
                var content = NoteContent(id: 5, content: "content only")
                try await db.execute(
                    query:
                        "ALTER TABLE note ALTER COLUMN \"createdAt\" SET DEFAULT now(), ALTER COLUMN mood SET DEFAULT 'none'"
                )
                try await db.insert(&content)
                var note2 = Note(id: nil, createdAt: created, content: "full again", mood: "sad")
                try await db.insert(&note2)
                return (note, content, note2)
            }
            #expect(note.id == 1)
            #expect(content == NoteContent(id: 5, content: "content only"))
            #expect(note2.id == 2)
            let moods = try await pool.read { db in
                try await db.fetchAll(String.self, query: "SELECT mood FROM note ORDER BY id")
            }
            #expect(moods == ["happy", "sad", "none"])

            try await pool.write { db in
                try await db.update(NoteContent(id: 1, content: "changed through NoteContent"))
                try await db.update(Note(id: 2, createdAt: created, content: "changed through Note", mood: "calm"))
            }
            let (foundNote, foundContent, allContents) = try await pool.read { db in
                (
                    try await db.find(Note.self, id: 1), try await db.find(NoteContent.self, id: 2),
                    try await db.fetchAll(NoteContent.self)
                )
            }
            #expect(foundNote == Note(id: 1, createdAt: created, content: "changed through NoteContent", mood: "happy"))
            #expect(foundContent == NoteContent(id: 2, content: "changed through Note"))
            #expect(
                allContents.map(\.content) == ["changed through NoteContent", "changed through Note", "content only"])
        }
    }

    @Test("a model whose keys vary from value to value writes the keys each value encodes")
    func keysVaryByValue() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(
                    query: "CREATE TABLE sparse (id int8 PRIMARY KEY, content text NOT NULL, mood text DEFAULT 'unset')"
                )
                try await db.insert(SparseNote(id: 1, content: "a", mood: "happy"))
                try await db.insert(SparseNote(id: 2, content: "b", mood: nil))
                try await db.insert(SparseNote(id: 3, content: "c", mood: "sad"))
                // An update without the mood leaves it as it is.
                try await db.update(SparseNote(id: 3, content: "c2", mood: nil))
            }
            let rows = try await pool.read { db in try await db.fetchAll(SparseNote.self) }
            #expect(
                rows == [
                    SparseNote(id: 1, content: "a", mood: "happy"), SparseNote(id: 2, content: "b", mood: "unset"),
                    SparseNote(id: 3, content: "c2", mood: "sad"),
                ])
        }
    }

    @Test("a table dropped and created again with its columns in another order reads and writes correctly")
    func schemaChangeBetweenCalls() async throws {
        try await PostgresTestServer.withPool { pool in
            let created = Date(timeIntervalSince1970: 1_790_000_000)
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let before = try await pool.write { db in
                var note = Note(id: nil, createdAt: created, content: "before", mood: "happy")
                try await db.insert(&note)
                return try await db.find(Note.self, id: 1)
            }
            #expect(before?.content == "before")

            // The same columns in another order, and one more: `SELECT *` now gives other positions.
            try await pool.write { db in
                try await db.execute(query: "DROP TABLE note")
                try await db.execute(
                    query: """
                        CREATE TABLE note (
                            extra int4 DEFAULT 7, mood text NOT NULL, content text NOT NULL,
                            "createdAt" timestamptz NOT NULL, id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY)
                        """)
            }
            let (inserted, found, all) = try await pool.write { db in
                var note = Note(id: nil, createdAt: created, content: "after", mood: "sad")
                try await db.insert(&note)
                try await db.insert(Note(id: 9, createdAt: created, content: "nine", mood: "calm"))
                return (note, try await db.find(Note.self, id: 1), try await db.fetchAll(Note.self))
            }
            #expect(inserted == Note(id: 1, createdAt: created, content: "after", mood: "sad"))
            #expect(found == inserted)
            #expect(all.map(\.content) == ["after", "nine"])
            #expect(all.map(\.mood) == ["sad", "calm"])

            // A column added after the table's statements were first used.
            try await pool.write { db in
                try await db.execute(query: "ALTER TABLE note DROP COLUMN extra")
                try await db.execute(query: "ALTER TABLE note ADD COLUMN extra text DEFAULT 'x'")
            }
            let afterAlter = try await pool.read { db in try await db.find(Note.self, id: 9) }
            #expect(afterAlter == Note(id: 9, createdAt: created, content: "nine", mood: "calm"))
        }
    }
}
