import Foundation
import StrataTesting
import Testing

@testable import Strata
@testable import StrataCore

/// The `strata_migrations` table: what `Migrator` records with each migration, how it backfills a database migrated
/// before, how an edited file is refused or accepted, and how a hand-edited table is reported.
@Suite struct MigrationHistoryTests {
    /// A folder of three SQL migrations and the migrator registering them.
    private struct Fixture {
        let directory: TemporaryDirectory
        let folder: URL
        let files: [String: String] = [
            "0001_create_note.sql": "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL);",
            "0002_add_updated_at.sql": "ALTER TABLE note ADD COLUMN updated_at TEXT;",
            "0003_create_tag.sql": "CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        ]

        init() throws {
            directory = try TemporaryDirectory()
            folder = directory.url.appendingPathComponent("Migrations")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, sql) in files { try write(sql, to: name) }
        }

        func write(_ sql: String, to name: String) throws {
            try Data(sql.utf8).write(to: folder.appendingPathComponent(name))
        }

        func migrator(acceptingEdits: Bool = false) throws -> Migrator {
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: folder)
            migrator.acceptsEditedFiles = acceptingEdits
            return migrator
        }

        func checksum(_ name: String) throws -> String {
            SHA256.hexDigest(of: try Data(contentsOf: folder.appendingPathComponent(name)))
        }
    }

    private static func rows(_ db: Database) throws -> [[DatabaseValue]] {
        let statement = try db.prepare(
            query: "SELECT version, name, checksum, applied_at FROM strata_migrations ORDER BY version")
        var rows: [[DatabaseValue]] = []
        while let row = try statement.next() { rows.append(try (0..<4).map { try row[$0] }) }
        return rows
    }

    @Test func eachAppliedMigrationIsRecordedWithItsChecksumAndTime() throws {
        let fixture = try Fixture()
        var migrator = try fixture.migrator()
        migrator.register(version: 4, name: "seed tags") { db in
            try db.execute(query: "INSERT INTO tag (name) VALUES ('inbox')")
        }
        let db = try Database()
        let start = Date()
        #expect(try migrator.migrate(db) == [1, 2, 3, 4])
        let end = Date()

        let history = try migrator.status(of: db).history
        #expect(history.map(\.version) == [1, 2, 3, 4])
        #expect(
            history.map(\.name) == ["0001_create_note", "0002_add_updated_at", "0003_create_tag", "0004_seed tags"])
        #expect(
            history.map(\.checksum) == [
                try fixture.checksum("0001_create_note.sql"), try fixture.checksum("0002_add_updated_at.sql"),
                try fixture.checksum("0003_create_tag.sql"), nil,
            ])
        for applied in history {
            let time = try #require(applied.appliedAt)
            // Stored to the millisecond.
            #expect(time >= start.addingTimeInterval(-0.001) && time <= end.addingTimeInterval(0.001))
        }
        #expect(migrator.migrations.compactMap(\.checksum) == history.compactMap(\.checksum))
    }

    @Test func aFailingMigrationLeavesNoRow() throws {
        let fixture = try Fixture()
        try fixture.write("CREATE TABLE broken (x); INSERT INTO missing VALUES (1);", to: "0004_broken.sql")
        let migrator = try fixture.migrator()
        let db = try Database()
        #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(try db.userVersion == 3)
        #expect(try Self.rows(db).map { $0[0] } == [.integer(1), .integer(2), .integer(3)])
        #expect(try MigrationFixtures.tableNames(db).contains("broken") == false)
    }

    @Test func aDatabaseMigratedWithoutHistoryIsBackfilledAtTheNextMigrate() throws {
        let fixture = try Fixture()
        let migrator = try fixture.migrator()
        let db = try Database()
        for migration in migrator.migrations.prefix(2) {
            try db.migrate(version: migration.version) { db in
                try db.execute(query: fixture.files[migration.identifier + ".sql"] ?? "")
            }
        }
        var status = try migrator.status(of: db)
        #expect(status.history.isEmpty)
        #expect(status.applied == [1, 2] && status.pending == [3] && status.edited.isEmpty)
        // status only reads.
        #expect(try MigrationFixtures.allTableNames(db) == ["note"])

        #expect(try migrator.migrate(db) == [3])
        status = try migrator.status(of: db)
        #expect(status.history.map(\.version) == [1, 2, 3])
        #expect(status.history.map(\.appliedAt).prefix(2) == [nil, nil])
        #expect(status.history.last?.appliedAt != nil)
        #expect(status.history[0].checksum == (try fixture.checksum("0001_create_note.sql")))

        // An up-to-date database is backfilled too, without applying anything.
        let second = try Database()
        try db.backfillTestCopy(into: second)
        try second.execute(query: "DROP TABLE strata_migrations")
        #expect(try migrator.migrate(second) == [])
        #expect(try migrator.status(of: second).history.map(\.version) == [1, 2, 3])
    }

    @Test func anEditedFileIsRefusedBeforeAnythingRunsUnlessAccepted() throws {
        let fixture = try Fixture()
        let db = try Database()
        try fixture.migrator().migrate(db, to: 2)
        let recorded = try Self.rows(db)
        try fixture.write("CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT);", to: "0001_create_note.sql")

        let migrator = try fixture.migrator()
        #expect(try migrator.status(of: db).edited == [1])
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("0001_create_note.sql changed since it was applied") == true)
        #expect(throws: DatabaseError.self) { try migrator.pendingMigrations(for: db) }
        // Nothing ran: version 3 is still pending and the history is as it was.
        #expect(try db.userVersion == 2)
        #expect(try Self.rows(db) == recorded)

        let accepting = try fixture.migrator(acceptingEdits: true)
        #expect(try accepting.migrate(db) == [3])
        let status = try migrator.status(of: db)
        #expect(status.edited.isEmpty)
        #expect(status.history.first?.checksum == (try fixture.checksum("0001_create_note.sql")))
        // The time of the original apply is kept.
        #expect(try Self.rows(db).first?[3] == recorded.first?[3])
        #expect(try migrator.migrate(db) == [])
    }

    @Test func aNewerDatabaseReportsItsExtraVersionsAsMissing() throws {
        let fixture = try Fixture()
        let db = try Database()
        try fixture.migrator().migrate(db)
        try fixture.write("CREATE TABLE later (x);", to: "0004_later.sql")
        try fixture.write("CREATE TABLE latest (x);", to: "0005_latest.sql")
        try fixture.migrator().migrate(db)
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("0004_later.sql"))
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("0005_latest.sql"))

        let migrator = try fixture.migrator()
        let status = try migrator.status(of: db)
        #expect(status.currentVersion == 5 && status.latestVersion == 3)
        #expect(status.missing == [4, 5])
        #expect(status.history.suffix(2).map(\.name) == ["0004_later", "0005_latest"])
        #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(try db.userVersion == 5)
    }

    @Test func pendingMigrationsWritesNothing() throws {
        let fixture = try Fixture()
        let db = try Database()
        let migrator = try fixture.migrator()
        #expect(try migrator.pendingMigrations(for: db).map(\.version) == [1, 2, 3])
        #expect(try migrator.pendingMigrations(for: db, to: 1).map(\.identifier) == ["0001_create_note"])
        #expect(try db.userVersion == 0)
        #expect(try MigrationFixtures.allTableNames(db) == [])
        #expect(throws: DatabaseError.self) { try migrator.pendingMigrations(for: db, to: 4) }
    }

    /// A `strata_migrations` table edited by hand.
    struct HandEdit: Sendable, CustomTestStringConvertible {
        let name: String
        let sql: String
        let message: String
        var testDescription: String { name }

        static let all: [HandEdit] = [
            HandEdit(
                name: "a checksum that is not hexadecimal",
                sql: "UPDATE strata_migrations SET checksum = 'xyz' WHERE version = 2",
                message: "whose checksum is 'xyz', not 64 hexadecimal digits or NULL"),
            HandEdit(
                name: "a version that is text",
                sql: "UPDATE strata_migrations SET version = 'two' WHERE version = 2",
                message: "whose version is 'two', not a version number"),
            HandEdit(
                name: "a version the database does not have",
                sql: "INSERT INTO strata_migrations (version, name) VALUES (9, 'future')",
                message: "records version 9, but the database is at version 3"),
            HandEdit(
                name: "a missing name",
                sql: "UPDATE strata_migrations SET name = NULL WHERE version = 1",
                message: "for version 1 whose name is NULL"),
            HandEdit(
                name: "a time that is not a date",
                sql: "UPDATE strata_migrations SET applied_at = 'yesterday' WHERE version = 3",
                message: "for version 3 whose applied_at is 'yesterday', not a date or NULL"),
            HandEdit(
                name: "other columns",
                sql: "ALTER TABLE strata_migrations ADD COLUMN note TEXT",
                message: "has the columns version, name, checksum, applied_at, note"),
        ]
    }

    @Test("A hand-edited history is a clear error, and changes nothing", arguments: HandEdit.all)
    func handEditedHistory(_ edit: HandEdit) throws {
        let fixture = try Fixture()
        try fixture.write("CREATE TABLE later (x);", to: "0004_later.sql")
        let db = try Database()
        let migrator = try fixture.migrator()
        try migrator.migrate(db, to: 3)
        // A table without a NOT NULL or type check on name and version, so the edits go through.
        try db.execute(
            query: """
                CREATE TABLE loose AS SELECT * FROM strata_migrations;
                DROP TABLE strata_migrations;
                CREATE TABLE strata_migrations (version, name, checksum, applied_at);
                INSERT INTO strata_migrations SELECT * FROM loose;
                DROP TABLE loose;
                """)
        try db.execute(query: edit.sql)
        let before = try MigrationSnapshot(db)
        for outcome in [
            Result { try migrator.status(of: db) }.map { _ in () },
            Result { try migrator.migrate(db) }.map { _ in () },
        ] {
            guard case .failure(let error) = outcome, let error = error as? DatabaseError else {
                Issue.record("\(edit.name): expected a DatabaseError, got \(outcome)")
                continue
            }
            #expect(error.code == .migration)
            #expect(error.message.contains("strata_migrations"), "\(error.message)")
            #expect(error.message.contains(edit.message), "\(error.message)")
        }
        #expect(try MigrationSnapshot(db) == before)
    }

    @Test func sha256MatchesKnownDigests() {
        #expect(SHA256.hexDigest(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hexDigest(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hexDigest(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // sha256sum runs with StrataTesting's ChildProcess, which is Linux only.
    #if canImport(Glibc)
        @Test("SHA-256 agrees with sha256sum on every length around the block boundaries")
        func sha256MatchesTheSystemTool() throws {
            let directory = try TemporaryDirectory()
            var generator = SplitMix64(seed: 0x5A256)
            for length in [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let file = directory.url.appendingPathComponent("bytes-\(length)")
                try Data(bytes).write(to: file)
                let finished = try ChildProcess.run(
                    "/usr/bin/sha256sum", [file.path], in: directory.url.path, timeout: .seconds(60))
                #expect(finished.termination == .exited(0), "\(finished.errorText)")
                let printed = finished.outputText
                #expect(
                    printed.split(separator: " ").first.map(String.init) == SHA256.hexDigest(of: bytes), "\(length)")
            }
        }
    #endif
}

extension Database {
    /// Copies this in-memory database's tables and rows into `other` (another in-memory database), version included.
    fileprivate func backfillTestCopy(into other: Database) throws {
        let tables = try fetchAll(
            String.self, query: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for sql in tables { try other.execute(query: sql) }
        try other.setUserVersion(try userVersion)
    }
}
