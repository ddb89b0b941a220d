import Foundation
import Testing

@testable import Strata

@Suite struct MigratorTests {
    /// Three Swift-block migrations of a small notes schema.
    private static func notesMigrator() -> Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create note") { db in
            try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
        }
        migrator.register(version: 2, name: "add updated_at") { db in
            try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
        }
        migrator.register(version: 3, name: "create tag") { db in
            try db.execute(query: "CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
        }
        return migrator
    }

    @Test func designExample() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("ALTER TABLE note ADD COLUMN updated_at TEXT;".utf8)
            .write(to: folder.appendingPathComponent("0002_add_updated_at.sql"))

        var migrator = Migrator()
        migrator.register(version: 1, name: "create note") { db in
            try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
        }
        try migrator.registerSQLFiles(in: folder)
        #expect(migrator.latestVersion == 2)
        #expect(migrator.migrations.map(\.identifier) == ["0001_create note", "0002_add_updated_at"])

        let db = try Database()
        #expect(
            try migrator.status(of: db)
                == MigrationStatus(currentVersion: 0, latestVersion: 2, applied: [], pending: [1, 2]))
        #expect(try migrator.migrate(db, to: 1) == [1])
        let first = try migrator.status(of: db)
        #expect(first.currentVersion == 1 && first.latestVersion == 2 && first.applied == [1] && first.pending == [2])
        #expect(first.history.map(\.name) == ["0001_create note"])
        #expect(try migrator.migrate(db) == [2])
        let status = try migrator.status(of: db)
        #expect(status.currentVersion == 2)
        #expect(status.applied == [1, 2])
        #expect(status.pending == [])
        #expect(status.isUpToDate)
        #expect(try migrator.migrate(db) == [])
        #expect(
            try MigrationFixtures.column(String.self, db, "SELECT name FROM pragma_table_info('note') ORDER BY cid")
                == ["id", "content", "updated_at"])
    }

    @Test func migratingToAnOlderTargetChangesNothing() throws {
        let migrator = Self.notesMigrator()
        let db = try Database()
        #expect(try migrator.migrate(db) == [1, 2, 3])
        #expect(try migrator.migrate(db, to: 2) == [])
        #expect(try migrator.migrate(db, to: 0) == [])
        #expect(try db.userVersion == 3)
    }

    @Test func anUnknownTargetThrows() throws {
        let migrator = Self.notesMigrator()
        let db = try Database()
        for target in [4, -1] {
            let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db, to: target) }
            #expect(error?.code == .migration)
            #expect(error?.message.contains("version \(target)") == true)
        }
        #expect(try db.userVersion == 0)
    }

    @Test func versionsAreContiguousFrom1() throws {
        var gap = Migrator()
        let counter = MigrationRunCounter()
        gap.register(version: 1, name: "one") { _ in counter.increment() }
        gap.register(version: 3, name: "three") { _ in counter.increment() }
        let db = try Database()
        let gapError = #expect(throws: DatabaseError.self) { try gap.migrate(db) }
        #expect(gapError?.code == .migration)
        #expect(gapError?.message.contains("version 2 is missing") == true)
        #expect(throws: DatabaseError.self) { try gap.status(of: db) }
        #expect(throws: DatabaseError.self) { try gap.validate() }

        var late = Migrator()
        late.register(version: 2, name: "two") { _ in counter.increment() }
        let lateError = #expect(throws: DatabaseError.self) { try late.migrate(db) }
        #expect(lateError?.message.contains("version 1 is missing") == true)

        var duplicate = Migrator()
        duplicate.register(version: 1, name: "one") { _ in counter.increment() }
        duplicate.register(version: 1, name: "one again") { _ in counter.increment() }
        let duplicateError = #expect(throws: DatabaseError.self) { try duplicate.migrate(db) }
        #expect(duplicateError?.message.contains("duplicate migration version 1") == true)
        #expect(duplicateError?.message.contains("\"one again\"") == true)

        // Reported before any migration runs.
        #expect(counter.value == 0)
        #expect(try db.userVersion == 0)
    }

    @Test func aNewerDatabaseIsRefused() throws {
        let migrator = Self.notesMigrator()
        let db = try Database()
        try db.setUserVersion(5)
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("version 5") == true)
        #expect(error?.message.contains("version 3") == true)
        // status reports what migrate refuses.
        #expect(try migrator.status(of: db).missing == [4, 5])
        #expect(throws: DatabaseError.self) { try migrator.migrate(db, to: 1) }
        #expect(try db.userVersion == 5)
        #expect(try MigrationFixtures.tableNames(db) == [])
    }

    @Test func aMigrationErrorNamesTheMigration() throws {
        var migrator = Self.notesMigrator()
        migrator.register(version: 4, name: "bad index") { db in
            try db.execute(query: "CREATE INDEX tag_color ON tag (color)")
        }
        migrator.register(version: 5, name: "never") { db in
            try db.execute(query: "CREATE TABLE never (x)")
        }
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(error?.message.hasPrefix("migration 4 \"bad index\" failed: ") == true)
        #expect(error?.message.contains("no such column: color") == true)
        #expect(error?.resultCode == .error)
        #expect(error?.sql == "CREATE INDEX tag_color ON tag (color)")
        let underlying = try #require(error?.underlyingError as? DatabaseError)
        #expect(underlying.code == .sqlite)
        // The migrations before it stay applied; nothing after it ran.
        #expect(try db.userVersion == 3)
        #expect(try MigrationFixtures.tableNames(db) == ["note", "tag"])

        // A Swift error is wrapped too, and kept.
        var throwing = Migrator()
        throwing.register(version: 1, name: "throws") { _ in throw MigrationPlannedFailure() }
        let wrapped = #expect(throws: DatabaseError.self) { try throwing.migrate(try Database()) }
        #expect(wrapped?.message == "migration 1 \"throws\" failed: planned failure")
        #expect(wrapped?.underlyingError is MigrationPlannedFailure)
    }

    @Test func aFailingSQLFileLeavesTheDatabaseAsBefore() throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write(
            "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL);\nINSERT INTO note VALUES (1, 'kept');",
            to: "0001_create_note.sql", in: directory)
        try MigrationFixtures.write(
            """
            ALTER TABLE note ADD COLUMN updated_at TEXT;
            UPDATE note SET content = 'lost';
            CREATE TABLE tag (name TEXT);
            CREAT INDEX oops ON tag (name);
            """,
            to: "0002_half_done.sql", in: directory)
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: directory.url)
        let db = try Database()
        try migrator.migrate(db, to: 1)
        let before = try MigrationSnapshot(db)
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.message.contains("0002_half_done.sql") == true)
        #expect(error?.message.contains("syntax error") == true)
        #expect(try MigrationSnapshot(db) == before)
        #expect(try MigrationFixtures.column(String.self, db, "SELECT content FROM note") == ["kept"])
    }

    @Test func aForeignKeyViolationAbortsTheStep() throws {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create") { db in
            try db.execute(
                query: """
                    CREATE TABLE note (id INTEGER PRIMARY KEY);
                    CREATE TABLE note_tag (note_id INTEGER NOT NULL REFERENCES note (id) ON DELETE CASCADE);
                    """)
        }
        migrator.register(version: 2, name: "orphan") { db in
            try db.execute(query: "INSERT INTO note_tag (note_id) VALUES (404)")
        }
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(error?.message.contains("migration 2 \"orphan\" failed") == true)
        #expect(error?.message.contains("\"note_tag\"") == true)
        #expect(try db.userVersion == 1)
        #expect(try MigrationFixtures.column(Int.self, db, "SELECT count(*) FROM note_tag") == [0])
    }

    @Test func aSynchronousMigrateRunsOnTheCallingThread() throws {
        // The loop is written once, async; `migrate(db)` runs it on the caller's thread, where `db` belongs.
        let caller = pthread_self()
        let threads = LockedValue<[Bool]>([])
        var migrator = Migrator()
        for version in 1...3 {
            migrator.register(version: version, name: "step \(version)") { db in
                threads.withLock { $0.append(pthread_equal(pthread_self(), caller) != 0) }
                try db.execute(query: "CREATE TABLE step_\(version) (x)")
            }
        }
        let db = try Database()
        #expect(try migrator.pendingMigrations(for: db).map(\.version) == [1, 2, 3])
        #expect(try migrator.migrate(db) == [1, 2, 3])
        #expect(threads.withLock { $0 } == [true, true, true])
        #expect(try migrator.status(of: db).currentVersion == 3)
    }

    @Test func theSameMigratorRunsOnAPoolAQueueAndADatabase() async throws {
        let directory = try TemporaryDirectory()
        let migrator = Self.notesMigrator()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"))
        let queue = try DatabaseQueue()
        #expect(try await migrator.pendingMigrations(for: pool, to: 2).map(\.version) == [1, 2])
        #expect(try await migrator.migrate(pool, to: 2) == [1, 2])
        #expect(try await migrator.migrate(queue) == [1, 2, 3])
        #expect(try await migrator.migrate(pool) == [3])
        #expect(try await migrator.status(of: pool).applied == [1, 2, 3])
        #expect(try await migrator.status(of: queue).history.map(\.version) == [1, 2, 3])
        #expect(try await migrator.migrate(queue) == [])
        await pool.close()
        await queue.close()
    }

    @Test func aMigratorIsSendable() async throws {
        let migrator = Self.notesMigrator()
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let applied = try await Task.detached {
            let db = try Database(path: path)
            return try migrator.migrate(db)
        }.value
        #expect(applied == [1, 2, 3])
    }

    @Test func theExampleMigrationsBuildTheNotesSchema() throws {
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: MigrationFixtures.exampleMigrations)
        #expect(migrator.migrations.map(\.version) == [1, 2, 3])
        #expect(migrator.migrations.first?.identifier == "0001_create_note")
        let db = try Database()
        #expect(try migrator.migrate(db, to: 1) == [1])
        #expect(
            try MigrationFixtures.column(String.self, db, "SELECT name FROM pragma_table_info('note') ORDER BY cid")
                == ["id", "created_at", "content"])
        try db.execute(query: "INSERT INTO note (created_at, content) VALUES ('2024-05-01 08:00:00.000', 'hello')")
        #expect(try migrator.migrate(db) == [2, 3])
        #expect(
            try MigrationFixtures.column(String.self, db, "SELECT name FROM pragma_table_info('note') ORDER BY cid")
                == ["id", "created_at", "content", "updated_at"])
        #expect(try MigrationFixtures.tableNames(db) == ["note", "note_tag", "tag"])
        try db.execute(
            query: """
                INSERT INTO tag (id, name) VALUES (1, 'work');
                INSERT INTO note_tag (note_id, tag_id) VALUES (1, 1);
                """)
        #expect(throws: DatabaseError.self) { try db.execute(query: "INSERT INTO tag (name) VALUES ('work')") }
        #expect(throws: DatabaseError.self) { try db.execute(query: "INSERT INTO note_tag VALUES (1, 99)") }
        try db.execute(query: "DELETE FROM note WHERE id = 1")
        #expect(try MigrationFixtures.column(Int.self, db, "SELECT count(*) FROM note_tag") == [0])
    }
}

/// A count shared with `@Sendable` migration blocks.
final class MigrationRunCounter: Sendable {
    private let count = LockedValue(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
    }
}
