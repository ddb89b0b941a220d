import Foundation
import Strata
import Testing

@Suite("Concurrency: one reader/writer protocol for pools and queues")
struct DatabaseReaderWriterTests {
    /// Migrates and counts through the protocols only, as library code written once for both would.
    func migrateAndCount(_ writer: some DatabaseWriter<Database>) async throws -> (
        applied: [Int], status: MigrationStatus, notes: Int
    ) {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create note") { db in
            try db.execute(
                query:
                    "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT, mood TEXT, score INTEGER, archivedAt TEXT)"
            )
        }
        migrator.register(version: 2, name: "seed") { db in
            try db.execute(query: "INSERT INTO note (content, mood, score) VALUES ('a', 'happy', 1), ('b', 'sad', 2)")
        }
        let applied = try await migrator.migrate(writer)
        #expect(try await migrator.migrate(writer).isEmpty)
        try await writer.write { db in try db.insert(QNote(id: nil, content: "c", mood: "happy", score: 3)) }
        let status = try await migrator.status(of: writer)
        let notes = try await writer.read { db in try db.fetchCount(QNote.filter(Column("mood") == "happy")) }
        return (applied, status, notes)
    }

    @Test func aPoolIsAWriter() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 2)
        let result = try await migrateAndCount(pool)
        #expect(result.applied == [1, 2])
        #expect(result.status.currentVersion == 2)
        #expect(result.status.pending.isEmpty)
        #expect(result.notes == 2)
        await pool.close()
    }

    @Test func aQueueIsAWriter() async throws {
        let queue = try DatabaseQueue()
        let result = try await migrateAndCount(queue)
        #expect(result.applied == [1, 2])
        #expect(result.status.applied == [1, 2])
        #expect(result.notes == 2)
        await queue.close()
    }

    @Test func migratingAWriterToAVersionStopsThere() async throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        for version in 1...3 {
            migrator.register(version: version, name: "step \(version)") { db in
                try db.execute(query: "CREATE TABLE t\(version) (x)")
            }
        }
        #expect(try await migrator.migrate(queue, to: 2) == [1, 2])
        #expect(try await migrator.status(of: queue).pending == [3])
        await queue.close()
    }
}
