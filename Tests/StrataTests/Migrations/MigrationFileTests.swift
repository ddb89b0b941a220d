import Foundation
import Strata
import Testing

@Suite struct MigrationFileTests {
    @Test func filesThatAreNotMigrationsAreIgnored() throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write(
            "CREATE TABLE note (id INTEGER PRIMARY KEY);", to: "0001_create_note.sql", in: directory)
        try MigrationFixtures.write("# Migrations\n", to: "README.md", in: directory)
        try MigrationFixtures.write("junk", to: ".DS_Store", in: directory)
        try MigrationFixtures.write("junk", to: "._0002_resource_fork.sql", in: directory)
        try MigrationFixtures.write("junk", to: "0002_draft.sql.bak", in: directory)
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("archive"), withIntermediateDirectories: true)
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: directory.url)
        #expect(migrator.migrations.map(\.identifier) == ["0001_create_note"])
        #expect(migrator.migrations.first?.name == "create_note")
        #expect(migrator.migrations.first?.fileURL?.lastPathComponent == "0001_create_note.sql")
    }

    @Test(arguments: [
        "create_note.sql", "0001-create_note.sql", "0001create.sql", "0001_.sql", "_create_note.sql",
        "0000_zero.sql", "0x01_hex.sql", "0001_create note.sql", "0001_créer.sql", "99999999999_big.sql",
        "0001_a.b.sql",
    ])
    func aMalformedMigrationFileNameIsAnError(fileName: String) throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE a (x);", to: "0001_create_a.sql", in: directory)
        try MigrationFixtures.write("CREATE TABLE b (x);", to: fileName, in: directory)
        var migrator = Migrator()
        let error = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: directory.url) }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("malformed migration file name \"\(fileName)\"") == true)
        // Nothing was registered, so nothing can run.
        #expect(migrator.migrations.isEmpty)
    }

    @Test func aGapOrADuplicateVersionIsAnError() throws {
        let gap = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE a (x);", to: "0001_a.sql", in: gap)
        try MigrationFixtures.write("CREATE TABLE c (x);", to: "0003_c.sql", in: gap)
        var migrator = Migrator()
        let gapError = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: gap.url) }
        #expect(gapError?.code == .migration)
        #expect(gapError?.message.contains("version 2 is missing") == true)
        #expect(gapError?.message.contains("0003_c.sql") == true)
        #expect(migrator.migrations.isEmpty)

        let duplicate = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE a (x);", to: "0001_a.sql", in: duplicate)
        try MigrationFixtures.write("CREATE TABLE b (x);", to: "001_b.sql", in: duplicate)
        let duplicateError = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: duplicate.url) }
        #expect(duplicateError?.message.contains("duplicate migration version 1") == true)
        #expect(duplicateError?.message.contains("0001_a.sql") == true)
        #expect(duplicateError?.message.contains("001_b.sql") == true)

        let late = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE b (x);", to: "0002_b.sql", in: late)
        #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: late.url) }

        // A folder whose versions repeat a Swift migration's is an error too.
        var mixed = Migrator()
        mixed.register(version: 1, name: "create a") { db in try db.execute(query: "CREATE TABLE a (x)") }
        let clash = #expect(throws: DatabaseError.self) { try mixed.registerSQLFiles(in: gap.url) }
        #expect(clash?.message.contains("duplicate migration version 1") == true)
        #expect(mixed.migrations.count == 1)
    }

    @Test func swiftAndSQLMigrationsShareOneSequence() throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE b (x);", to: "0002_create_b.sql", in: directory)
        try MigrationFixtures.write("CREATE TABLE c (x);", to: "0003_create_c.sql", in: directory)
        var migrator = Migrator()
        migrator.register(version: 1, name: "create a") { db in try db.execute(query: "CREATE TABLE a (x)") }
        try migrator.registerSQLFiles(in: directory.url)
        migrator.register(version: 4, name: "create d") { db in try db.execute(query: "CREATE TABLE d (x)") }
        let db = try Database()
        #expect(try migrator.migrate(db) == [1, 2, 3, 4])
        #expect(try MigrationFixtures.tableNames(db) == ["a", "b", "c", "d"])
    }

    @Test func aMissingFolderIsAnError() throws {
        let directory = try TemporaryDirectory()
        var migrator = Migrator()
        let missing = directory.url.appendingPathComponent("Migrations")
        let error = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: missing) }
        #expect(error?.code == .migration)
        #expect(error?.message == "no migrations folder at \(missing.path)")

        let file = try MigrationFixtures.write("", to: "0001_a.sql", in: directory)
        #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: file) }
    }

    @Test func anEmptyFolderHasNoMigrations() throws {
        let directory = try TemporaryDirectory()
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: directory.url)
        let db = try Database()
        #expect(migrator.latestVersion == 0)
        #expect(try migrator.migrate(db) == [])
        #expect(
            try migrator.status(of: db)
                == MigrationStatus(currentVersion: 0, latestVersion: 0, applied: [], pending: []))
    }

    @Test func aFileThatIsNotUTF8IsAnError() throws {
        let directory = try TemporaryDirectory()
        try Data([0x43, 0xff, 0xfe, 0x3b]).write(to: directory.url.appendingPathComponent("0001_binary.sql"))
        var migrator = Migrator()
        let error = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: directory.url) }
        #expect(error?.message.contains("0001_binary.sql") == true)
    }

    @Test func aFileRunsAsManyStatementsWithComments() throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write(
            """
            -- Migration 1: several statements.
            CREATE TABLE a (x INTEGER); /* a block comment */
            INSERT INTO a VALUES (1);
            INSERT INTO a VALUES (2);
            -- A comment at the end.
            """,
            to: "0001_create_a.SQL", in: directory)
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: directory.url)
        let db = try Database()
        try migrator.migrate(db)
        #expect(try MigrationFixtures.column(Int.self, db, "SELECT x FROM a ORDER BY x") == [1, 2])
    }

    @Test("SQLite refuses a -- strata:no-transaction file by name before any migration runs, in migrate and dry run")
    func aNoTransactionFileIsRefusedOnSQLite() throws {
        let directory = try TemporaryDirectory()
        try MigrationFixtures.write("CREATE TABLE a (x);", to: "0001_create_a.sql", in: directory)
        try MigrationFixtures.write(
            "-- strata:no-transaction\nCREATE INDEX a_x ON a (x);", to: "0002_index_a.sql", in: directory)
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: directory.url)
        let db = try Database()
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(
            error?.message
                == "migration 2 \"index_a\" (0002_index_a.sql) begins with -- strata:no-transaction, which only "
                + "PostgreSQL runs: on SQLite every migration runs in one transaction with its version bump; remove "
                + "the line")
        #expect(try db.userVersion == 0)
        #expect(try MigrationFixtures.tableNames(db) == [])
        #expect(throws: DatabaseError.self) { try migrator.pendingMigrations(for: db) }
        // status only reads: it reports the file as pending.
        #expect(try migrator.status(of: db).pending == [1, 2])
    }

    @Test("a -- strata: comment that is not the directive on the first line is an error, never a silent comment")
    func aMisplacedOrMisspeltDirectiveIsAnError() throws {
        for (sql, line) in [
            ("CREATE TABLE a (x);\n-- strata:no-transaction\n", 2),
            ("-- strata:no_transaction\nCREATE TABLE a (x);", 1),
            ("-- Strata:No-Transaction\nCREATE TABLE a (x);", 1),
        ] {
            let directory = try TemporaryDirectory()
            try MigrationFixtures.write(sql, to: "0001_create_a.sql", in: directory)
            var migrator = Migrator()
            let error = #expect(throws: DatabaseError.self) { try migrator.registerSQLFiles(in: directory.url) }
            #expect(error?.message.hasPrefix("migration 0001_create_a.sql, line \(line): ") == true, "\(sql)")
            #expect(error?.message.contains("goes on the first line") == true)
        }
        // The directive itself, with or without a space, and other comments are fine.
        for sql in [
            "-- strata:no-transaction\nSELECT 1;", "--strata:no-transaction\r\nSELECT 1;", "-- strata is nice\n",
        ] {
            let directory = try TemporaryDirectory()
            try MigrationFixtures.write(sql, to: "0001_create_a.sql", in: directory)
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: directory.url)
            #expect(migrator.migrations.count == 1)
        }
    }
}
