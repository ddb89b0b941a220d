import Foundation
import Logging
import NotesApp
import Strata
import StrataPostgres
import Testing

/// The server applies the repository's migrations for its backend before it serves.
@Suite struct MigrationTests {
    @Test func theRepositoryMigrationsAreFoundFromAnyWorkingDirectory() throws {
        let sqlite = NotesConfiguration.repositoryMigrations
        var postgres = NotesConfiguration()
        postgres.database = "postgres://notes@127.0.0.1:5432/notes"
        for folder in [sqlite, postgres.resolvedMigrationsDirectory] {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            #expect(files.sorted() == ["0001_create_note.sql", "0002_add_note_updated_at.sql", "0003_create_tag.sql"])
        }
        #expect(postgres.resolvedMigrationsDirectory.lastPathComponent == "postgresql")
        #expect(NotesConfiguration().resolvedMigrationsDirectory == sqlite)
    }

    @Test(
        arguments: [
            ("notes.sqlite", NotesConfiguration.Backend.sqlite(path: "notes.sqlite")),
            ("/var/lib/notes/notes.sqlite", .sqlite(path: "/var/lib/notes/notes.sqlite")),
            ("postgres://app@db:5432/app", .postgres(url: "postgres://app@db:5432/app")),
            ("postgresql://app@db/app", .postgres(url: "postgresql://app@db/app")),
            ("POSTGRES://app@db/app", .postgres(url: "POSTGRES://app@db/app")),
            ("postgres.sqlite", .sqlite(path: "postgres.sqlite")),
            ("postgres:notes.sqlite", .sqlite(path: "postgres:notes.sqlite")),
        ])
    func theDatabaseSettingSelectsTheBackend(database: String, backend: NotesConfiguration.Backend) {
        var configuration = NotesConfiguration()
        configuration.database = database
        #expect(configuration.backend == backend)
    }

    @Test(arguments: TestBackend.all) func openingMigratesTheDatabaseToVersion3(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let tables: [String]
            switch backend {
            case .sqlite:
                tables = try await server.fetchAll(
                    String.self,
                    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            case .postgres:
                tables = try await server.fetchAll(
                    String.self,
                    """
                    SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
                    ORDER BY table_name
                    """)
            }
            let recorded = try await server.fetchAll(Int.self, "SELECT version FROM strata_migrations ORDER BY version")
            let version = try await server.store.schemaVersion()
            #expect(version == 3)
            // PostgreSQL keeps the version in a table of its own (SQLite in `PRAGMA user_version`).
            let strataTables =
                backend == .sqlite ? ["strata_migrations"] : ["strata_migrations", "strata_schema_version"]
            #expect(tables == (["note", "note_tag", "tag"] + strataTables).sorted())
            #expect(recorded == [1, 2, 3])
        }
    }

    @Test(arguments: TestBackend.all) func theNoteTableHasTheColumnsTheModelUses(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let sql: SQL =
                switch backend {
                case .sqlite: "SELECT name FROM pragma_table_info('note') ORDER BY cid"
                case .postgres:
                    """
                    SELECT column_name::text FROM information_schema.columns
                    WHERE table_schema = current_schema() AND table_name = 'note' ORDER BY ordinal_position
                    """
                }
            let columns = try await server.fetchAll(String.self, sql)
            #expect(columns == ["id", "created_at", "content", "updated_at"])
        }
    }

    @Test(arguments: TestBackend.all) func reopeningAMigratedDatabaseAppliesNothing(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let id = try #require(try await server.store.create(content: "survives a restart").id)
            await server.database.close()
            let reopened = try await TestDatabase.open(server.configuration, logger: server.logger)
            let note = try await reopened.store.note(id: id)
            let version = try await reopened.store.schemaVersion()
            await reopened.close()
            #expect(note?.content == "survives a restart")
            #expect(version == 3)
        }
    }

    @Test func aMissingMigrationsFolderFailsBeforeTheDatabaseIsCreated() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-tests-\(UUID().uuidString)")
        var configuration = NotesConfiguration()
        configuration.database = folder.appendingPathComponent("notes.sqlite").path
        configuration.migrationsDirectory = folder.appendingPathComponent("no-such-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let error = await #expect(throws: DatabaseError.self) {
            _ = try await TestDatabase.open(configuration, logger: Logger(label: "test"))
        }
        #expect(error?.code == .migration)
        #expect(!FileManager.default.fileExists(atPath: configuration.database))
    }

    @Test(.enabled(if: PostgresTestServer.shouldRun, "STRATA_POSTGRES_URL is not set: no PostgreSQL server to test"))
    func aMissingMigrationsFolderFailsBeforeAnythingIsWrittenOnPostgreSQL() async throws {
        try await PostgresTestServer.withSchema { url in
            var configuration = NotesConfiguration()
            configuration.database = url
            configuration.migrationsDirectory = FileManager.default.temporaryDirectory
                .appendingPathComponent("notes-tests-\(UUID().uuidString)")
            let error = await #expect(throws: DatabaseError.self) {
                _ = try await TestDatabase.open(configuration, logger: Logger(label: "test"))
            }
            #expect(error?.code == .migration)
            let pool = try PostgresPool(url: url, connections: 1)
            let tables = try await pool.read { session in
                try await session.fetchOne(
                    Int.self, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
            }
            await pool.close()
            #expect(tables == 0)
        }
    }
}
