// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of docs/Migrations.md, run as written (see DocSnippetSupport.swift).

/// The repository's migrations, registered.
private func repositoryMigrator() throws -> Migrator {
    var migrator = Migrator()
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    return migrator
}

@Test("Migrations.md: one step at a time") func migrationsOneStep() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Migrations.md 1
    let db = try Database(path: "notes.sqlite")
    try db.migrate(version: 1) { db in
        try db.execute(query: """
            CREATE TABLE note (
                id INTEGER PRIMARY KEY,
                created_at TEXT NOT NULL,
                content TEXT NOT NULL
            )
            """)
    }
    try db.migrate(version: 2) { db in
        try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
    }
    let behind = try db.needsMigration(targetVersion: 3)   // userVersion < 3: true
    // end snippet
    #expect(behind)
    #expect(try db.userVersion == 2)
}

@Test("Migrations.md: a Migrator") func migrationsMigrator() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let later = URL(fileURLWithPath: "Migrations/later")
    try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
    for file in ["0002_add_note_updated_at.sql", "0003_create_tag.sql"] {
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: "Migrations/" + file), to: later.appendingPathComponent(file))
    }
    // snippet: docs/Migrations.md 2
    var migrator = Migrator()
    migrator.register(version: 1, name: "create note") { db in
        try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL)")
    }
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/later"))   // 0002_..., 0003_...

    let db = try Database(path: "notes.sqlite")
    try migrator.migrate(db, to: 2)      // up to a version; returns the versions it applied: [1, 2]
    var status = try migrator.status(of: db)
    print(status.currentVersion, status.applied, status.pending)   // 2 [1, 2] [3]
    try migrator.migrate(db)             // to the latest version: [3]
    status = try migrator.status(of: db)
    print(status.currentVersion, status.applied, status.pending)   // 3 [1, 2, 3] []
    // end snippet
    #expect(status.currentVersion == 3)
    #expect(status.applied == [1, 2, 3])
    #expect(status.pending.isEmpty)
}

@Test("Migrations.md: history and a dry run") func migrationsHistory() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Migrations.md 3
    var migrator = Migrator()
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    let db = try Database(path: "notes.sqlite")
    for migration in try migrator.pendingMigrations(for: db) {
        print("would apply", migration.identifier)   // 0001_create_note, 0002_..., 0003_...
    }
    try migrator.migrate(db)

    let status = try migrator.status(of: db)
    for applied in status.history {
        print(applied.version, applied.name, applied.checksum ?? "a Swift block", applied.appliedAt.map { "\($0)" } ?? "")
    }
    print(status.edited, status.missing)   // [] []
    // end snippet
    #expect(status.history.map(\.version) == [1, 2, 3])
    #expect(status.history.allSatisfy { $0.checksum?.count == 64 && $0.appliedAt != nil })
    #expect(status.edited.isEmpty && status.missing.isEmpty)
    #expect(try migrator.pendingMigrations(for: db).isEmpty)
}

@Test("Migrations.md: foreign keys off around a migration") func migrationsForeignKeys() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let db = try Database()
    let migrator = try repositoryMigrator()
    // snippet: docs/Migrations.md 4
    try db.setForeignKeys(false)
    defer { try? db.setForeignKeys(true) }
    try migrator.migrate(db)
    // end snippet
    #expect(try db.userVersion == 3)
}

@Test("Migrations.md: baselining") func migrationsBaselining() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let legacy = try Database(path: "legacy.sqlite")
    try legacy.execute(
        query: "CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL)")
    legacy.close()
    let migrator = try repositoryMigrator()
    // snippet: docs/Migrations.md 5
    let db = try Database(path: "legacy.sqlite")
    let legacyTables: Int = try db.prepare(
        query: "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'note'"
    ).next()?[0] ?? 0
    if try db.userVersion == 0, legacyTables == 1 {   // however you recognize the old schema
        try db.setUserVersion(1)
    }
    try migrator.migrate(db)      // runs 2, 3, ... only
    // end snippet
    #expect(try db.userVersion == 3)
    #expect(try db.fetchAll(String.self, query: "SELECT name FROM pragma_table_info('note') ORDER BY cid")
        == ["id", "created_at", "content", "updated_at"])
}

@Test("Migrations.md: on any writer") func migrationsOnAnyWriter() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Migrations.md 6
    func setUp(_ db: some DatabaseWriter) async throws -> MigrationStatus {
        var migrator = Migrator()
        try migrator.register(version: 1, name: "create tag", sql: "CREATE TABLE tag (id BIGINT PRIMARY KEY, name TEXT)")
        try migrator.register(version: 2, name: "add tag color", sql: "ALTER TABLE tag ADD COLUMN color TEXT")
        try await migrator.migrate(db)                    // [1, 2] on an empty database, then []
        return try await migrator.status(of: db)          // currentVersion 2, applied [1, 2], pending []
    }
    let status = try await setUp(try DatabasePool(path: "tags.sqlite"))
    // end snippet
    #expect(status.currentVersion == 2)
    #expect(status.applied == [1, 2])
    #expect(status.pending.isEmpty)
}
