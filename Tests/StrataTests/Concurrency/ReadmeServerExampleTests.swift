import Foundation
import Strata
import Testing

/// The server-app example of README.md, against the example schema in Migrations/.
@Suite("README server example")
struct ReadmeServerExampleTests {
    struct Note: Model, Sendable, Equatable {
        static let tableName = "note"
        static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
        var id: Int64?
        var createdAt: Date
        var content: String
    }

    static let migrations = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Migrations")

    @Test func handlersWriteAndReadThroughThePool() async throws {
        let directory = try TemporaryDirectory()
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: Self.migrations)
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 4)
        try await pool.writeWithoutTransaction { db in try migrator.migrate(db) }

        func createNote(content: String) async throws -> Note {
            var note = Note(id: nil, createdAt: Date(timeIntervalSince1970: 1_800_000_000), content: content)
            try await pool.write { db in try db.insert(&note) }
            return note
        }
        func listNotes() async throws -> [Note] {
            try await pool.read { db in try db.fetchAll(Note.self) }
        }

        let first = try await createNote(content: "hello")
        let second = try await createNote(content: "world")
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(try await listNotes() == [first, second])
        await pool.close()
    }
}
