import Foundation
import Strata
import Testing

/// The DESIGN.md "Concurrency" example, as written there, with records.
@Suite(.timeLimit(.minutes(1)))
struct DatabasePoolDesignTests {
    struct Note: Model {
        static let tableName = "note"
        var id: Int64?
        var createdAt: Date
        var content: String
    }

    @Test func theDesignExampleRuns() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 4)
        try await pool.write { db in
            try db.execute(
                query: "CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, content TEXT NOT NULL)")
        }
        var note = Note(id: nil, createdAt: Date(), content: "hello")
        try await pool.write { db in try db.insert(&note) }
        #expect(note.id == 1)
        let notes = try await pool.read { db in try db.fetchAll(Note.self) }
        #expect(notes.map(\.content) == ["hello"])
        #expect(notes.first?.id == note.id)
        await pool.close()
        withExtendedLifetime(directory) {}
    }

    @Test func aMigratorRunsThroughWriteWithoutTransaction() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("migrated.sqlite"))
        var migrator = Migrator()
        migrator.register(version: 1, name: "create note") { db in
            try db.execute(
                query: "CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, content TEXT NOT NULL)")
        }
        migrator.register(version: 2, name: "index note") { db in
            try db.execute(query: "CREATE INDEX note_created_at ON note (createdAt)")
        }
        let applied = try await pool.writeWithoutTransaction { db in try migrator.migrate(db) }
        try await pool.writeWithoutTransaction { db in try migrator.migrate(db) }
        #expect(applied == [1, 2])
        #expect(try await pool.read { db in try db.userVersion } == 2)
        await pool.close()
        withExtendedLifetime(directory) {}
    }
}
