import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL records", .postgresServer)
struct PostgresRecordTests {
    @Test("insert fills a nil key from the identity column; update, upsert, find and delete round-trip")
    func crudRoundTrip() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let created = Date(timeIntervalSince1970: 1_790_000_000.25)

            let first = try await pool.write { db in
                var note = Note(id: nil, createdAt: created, content: "Hello", mood: "happy")
                try await db.insert(&note)
                return note
            }
            #expect(first.id == 1)
            #expect(first.content == "Hello")

            var second = try await pool.write { db in
                var note = Note(id: nil, createdAt: created, content: "World", mood: "sad")
                try await db.insert(&note)
                return note
            }
            #expect(second.id == 2)

            second.content = "World, again"
            try await pool.write { [second] db in try await db.update(second) }
            let found = try await pool.read { db in try await db.find(Note.self, id: 2) }
            #expect(found == second)

            // upsert: an existing key updates, a new key inserts, a nil key is assigned.
            var changed = first
            changed.mood = "calm"
            try await pool.write { [changed] db in try await db.upsert(changed) }
            let inserted = try await pool.write { db in
                var note = Note(id: 10, createdAt: created, content: "Ten", mood: "happy")
                try await db.upsert(&note)
                var assigned = Note(id: nil, createdAt: created, content: "Assigned", mood: "happy")
                try await db.upsert(&assigned)
                return assigned
            }
            #expect(inserted.id == 3)

            let all = try await pool.read { db in try await db.fetchAll(Note.self) }
            #expect(all.map(\.id) == [1, 2, 3, 10])
            #expect(all.map(\.mood) == ["calm", "sad", "happy", "happy"])

            let deleted = try await pool.write { [second] db in try await db.delete(second) }
            let deletedAgain = try await pool.write { [second] db in try await db.delete(second) }
            let deletedByID = try await pool.write { db in try await db.delete(Note.self, id: Int64(10)) }
            #expect(deleted)
            #expect(!deletedAgain)
            #expect(deletedByID)
            let missing = try await pool.read { db in try await db.find(Note.self, id: 2) }
            #expect(missing == nil)
            let count = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM note")
            }
            #expect(count == 2)
        }
    }

    @Test("update of a missing row throws recordNotFound")
    func updateMissingRow() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.write { db in
                    try await db.update(Note(id: 42, createdAt: Date(), content: "x", mood: "y"))
                }
            }
            #expect(error?.code == .recordNotFound)
            #expect(error?.sql?.contains("UPDATE \"note\" SET") == true)
        }
    }

    @Test("insert with a key inserts that key; a duplicate key is a unique violation with SQLSTATE 23505")
    func insertWithKey() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let note = Note(id: 7, createdAt: Date(timeIntervalSince1970: 0), content: "seven", mood: "ok")
            try await pool.write { db in try await db.insert(note) }
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in try await db.insert(note) }
            }
            #expect(error?.sqlState == "23505")
            #expect(error?.code == .uniqueViolation)
            #expect(error?.description.contains("duplicate key value violates unique constraint") == true)
            #expect(error?.description.contains("while executing `INSERT INTO \"note\"") == true)
            let found = try await pool.read { db in try await db.find(Note.self, id: 7) }
            #expect(found == note)
        }
    }

    /// A model with snake_case columns and a UUID key that the column's default assigns.
    struct Tagged: Model, Equatable {
        static let tableName = "tagged"
        static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy { .convertToSnakeCase }
        var id: UUID?
        var displayName: String
        var createdAt: Date
    }

    @Test("snake_case keys and a UUID key assigned by the column default")
    func snakeCaseAndUUIDKey() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(
                    query: """
                        CREATE TABLE tagged (
                            id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                            display_name text NOT NULL,
                            created_at timestamptz NOT NULL)
                        """)
            }
            let tagged = try await pool.write { db in
                var tagged = Tagged(id: nil, displayName: "Ada", createdAt: Date(timeIntervalSince1970: 1_000))
                try await db.insert(&tagged)
                return tagged
            }
            let id = try #require(tagged.id)
            let found = try await pool.read { db in try await db.find(Tagged.self, id: id) }
            #expect(found == tagged)
            let name = try await pool.read { db in
                try await db.fetchOne(
                    String.self, query: "SELECT display_name FROM tagged WHERE id = :id", parameters: ["id": id])
            }
            #expect(name == "Ada")
        }
    }
}
