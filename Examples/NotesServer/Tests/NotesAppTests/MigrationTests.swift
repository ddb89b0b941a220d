import Foundation
import Logging
import NotesApp
import Strata
import Testing

/// The server applies the repository's `Migrations/` before it serves.
@Suite struct MigrationTests {
    @Test func theRepositoryMigrationsAreFoundFromAnyWorkingDirectory() throws {
        let folder = NotesConfiguration.repositoryMigrations
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
        #expect(files.sorted() == ["0001_create_note.sql", "0002_add_note_updated_at.sql", "0003_create_tag.sql"])
    }

    @Test func openingMigratesTheDatabaseToVersion3() async throws {
        try await withTestServer { server in
            let (version, tables, recorded) = try await server.pool.read { db in
                (
                    try db.userVersion,
                    try db.fetchAll(
                        String.self,
                        query:
                            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                    ),
                    try db.fetchAll(Int.self, query: "SELECT version FROM strata_migrations ORDER BY version")
                )
            }
            #expect(version == 3)
            #expect(tables == ["note", "note_tag", "strata_migrations", "tag"])
            #expect(recorded == [1, 2, 3])
        }
    }

    @Test func theNoteTableHasTheColumnsTheModelUses() async throws {
        try await withTestServer { server in
            let columns = try await server.pool.read { db in
                try db.fetchAll(String.self, query: "SELECT name FROM pragma_table_info('note') ORDER BY cid")
            }
            #expect(columns == ["id", "created_at", "content", "updated_at"])
        }
    }

    @Test func reopeningAMigratedDatabaseAppliesNothing() async throws {
        try await withTestServer { server in
            let id = try #require(try await server.store.create(content: "survives a restart").id)
            await server.pool.close()
            let reopened = try await NotesDatabase.open(server.configuration, logger: server.logger)
            let note = try await NoteStore(pool: reopened).note(id: id)
            let version = try await reopened.read { db in try db.userVersion }
            await reopened.close()
            #expect(note?.content == "survives a restart")
            #expect(version == 3)
        }
    }

    @Test func aMissingMigrationsFolderFailsBeforeTheDatabaseIsCreated() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-tests-\(UUID().uuidString)")
        var configuration = NotesConfiguration()
        configuration.databasePath = folder.appendingPathComponent("notes.sqlite").path
        configuration.migrationsDirectory = folder.appendingPathComponent("no-such-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let error = await #expect(throws: DatabaseError.self) {
            _ = try await NotesDatabase.open(configuration, logger: Logger(label: "test"))
        }
        #expect(error?.code == .migration)
        #expect(!FileManager.default.fileExists(atPath: configuration.databasePath))
    }
}
