// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of README.md, run as written (see DocSnippetSupport.swift).

@Test("README: API tour") func readmeAPITour() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: README.md 1
    let db = try Database(path: "app.sqlite")      // created if missing; WAL journal, foreign keys on
    let mem = try Database()                        // in-memory
    let ro = try Database(path: "app.sqlite", readOnly: true)   // never changes the file

    try db.execute(query: "CREATE TABLE foo (name TEXT, age INTEGER)")   // one or many statements

    let insert = try db.prepare(query: "INSERT INTO foo (name, age) VALUES (:name, :age)")
    try insert.bind(value: "Bar", for: "name")     // :name, @name and $name are bound by "name"
    try insert.bind(value: 42, at: 2)              // 1-based positional
    try insert.perform()                           // runs to completion, then resets; bindings persist

    let select = try db.prepare(query: "SELECT name, age FROM foo")
    while let row = try select.next() {            // the throwing cursor
        let name: String = try row["name"]
        let age: Int = try row.age                 // @dynamicMemberLookup
        let maybe: Int? = try row["age"]           // NULL reads as nil
        let raw: DatabaseValue = try row[1]        // .null, .integer, .real, .text, .blob
        print(name, age, maybe ?? 0, raw)
    }

    for row in select {                            // a Sequence: a failure ends the loop and is
        print(try row.name as String)
    }
    if let error = select.iterationError { throw error }   // kept in iterationError

    try db.transaction { db in                     // commits, or rolls back when the block throws
        try db.execute(query: "DELETE FROM foo")
        try db.transaction { db in                 // nested: a savepoint
            try db.execute(query: "INSERT INTO foo (name, age) VALUES ('Baz', 7)")
        }
    }

    ro.close()
    mem.close()
    db.close()                                     // idempotent; else the file closes once the database
                                                   // and any statements you still hold are released
    // end snippet
    let check = try Database(path: scratch.path("app.sqlite"))
    #expect(try check.fetchAll(String.self, query: "SELECT name || ' ' || age FROM foo") == ["Baz 7"])
}

@Test("README: Codable") func readmeCodable() async throws {
    let db = try Database()
    // snippet: README.md 2
    struct Author: Codable { var name: String; var email: String? }
    enum Mood: String, Codable { case happy, sad }

    struct Note: Codable {
        var id: Int64?
        var createdAt: Date        // TEXT "2026-11-22 19:41:00.000", UTC
        var content: String
        var mood: Mood             // "happy"
        var author: Author         // {"name":"Ada"} (a nil optional is left out of nested JSON)
        var tags: [String]         // ["swift","sqlite"]
        var archivedAt: Date?      // NULL
    }

    try db.execute(query: """
        CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT, content TEXT, mood TEXT,
                           author TEXT, tags TEXT, archivedAt TEXT)
        """)
    let note = Note(id: nil, createdAt: Date(), content: "Hello", mood: .happy,
                    author: Author(name: "Ada", email: nil), tags: ["swift", "sqlite"], archivedAt: nil)

    let insert = try db.prepare(query: """
        INSERT INTO note (createdAt, content, mood, author, tags, archivedAt)
        VALUES (:createdAt, :content, :mood, :author, :tags, :archivedAt)
        """)
    try StatementEncoder().encode(note, to: insert)   // keys without a parameter (id) are skipped
    try insert.perform()

    let notes = try db.fetchAll(Note.self, query: "SELECT * FROM note WHERE mood = :mood", parameters: ["mood": "happy"])
    let first = try db.fetchOne(Note.self, query: "SELECT * FROM note WHERE id = :id", parameters: ["id": 1])  // nil if none
    let count = try db.fetchOne(Int.self, query: "SELECT count(*) FROM note")          // scalars from one column
    let names = try db.fetchAll(String.self, query: "SELECT json_extract(author, '$.name') FROM note")

    let cursor = try db.fetchCursor(Note.self, query: "SELECT * FROM note")           // lazy: one row at a time
    while let note = try cursor.next() {
        print(note.content)
    }
    // end snippet
    #expect(notes.map(\.author.name) == ["Ada"])
    #expect(first?.tags == ["swift", "sqlite"])
    #expect(count == 1)
    #expect(names == ["Ada"])
    let stored = try #require(try db.prepare(query: "SELECT createdAt, mood, author, tags, archivedAt FROM note").next())
    let createdAt: String = try stored.createdAt
    #expect(createdAt.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}/) != nil)
    #expect(try stored.mood as String == "happy")
    #expect(try stored.author as String == #"{"name":"Ada"}"#)
    #expect(try stored.tags as String == #"["swift","sqlite"]"#)
    #expect(try stored.archivedAt as String? == nil)
}

@Test("README: records") func readmeRecords() async throws {
    let db = try Database()
    try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL)")
    // snippet: README.md 3
    struct Note: Model {               // Codable + table name + primary key ("id" unless primaryKey says otherwise)
        static let tableName = "note"
        static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase  // created_at
        var id: Int64?
        var createdAt: Date
        var content: String
    }

    var note = Note(id: nil, createdAt: Date(), content: "Hello")
    try db.insert(&note)               // note.id is filled from the new rowid
    note.content = "Hello, world"
    try db.update(note)                // throws DatabaseError(.recordNotFound) when no row has the id
    try db.upsert(&note)               // INSERT ... ON CONFLICT DO UPDATE
    let one = try db.find(Note.self, id: 1)
    let all = try db.fetchAll(Note.self)
    let some = try db.fetchAll(Note.self, where: "content LIKE :q", parameters: ["q": "%world%"])
    try db.delete(note)
    // end snippet
    #expect(one?.content == "Hello, world")
    #expect(all.map(\.id) == [1])
    #expect(some.map(\.content) == ["Hello, world"])
    #expect(try db.fetchAll(Note.self).isEmpty)
}

@Test("README: queries") func readmeQueries() async throws {
    let db = try Database()
    try db.execute(query: """
        CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, mood TEXT NOT NULL, archivedAt TEXT);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL, name TEXT NOT NULL);
        INSERT INTO note (content, mood) VALUES ('swift', 'happy'), ('more swift', 'happy'), ('rain', 'sad');
        INSERT INTO tag (noteId, name) VALUES (1, 'lang'), (2, 'lang');
        """)
    // snippet: README.md 4
    struct Note: Model {
        static let tableName = "note"
        var id: Int64?
        var content: String
        var mood: String
        var archivedAt: Date?
    }

    struct Tag: Model {
        static let tableName = "tag"
        var id: Int64?
        var noteId: Int64
        var name: String
    }

    let request = Note
        .filter(Column("mood") == "happy" && Column("archivedAt") == nil)   // == nil is IS NULL
        .filter(Column("content").like("%swift%"))
        .order(Column("id").desc)
        .limit(10)
    let notes: [Note] = try db.fetchAll(request)
    let total = try db.fetchCount(request)
    print(request.sql)    // SELECT "note".* FROM "note" WHERE ... ORDER BY "note"."id" DESC LIMIT ?

    let archived = try db.updateAll(Note.filter(Column("mood") == "sad"), Column("archivedAt").set(to: Date()))
    let deleted = try db.deleteAll(Note.filter(Column("archivedAt") != nil))   // rows changed

    struct Stats: Decodable { var newest: Int64; var total: Int }
    let stats = try db.fetchOne(Stats.self, Note.select(max(Column("id")).forKey("newest"),
                                                        count(Column("id")).forKey("total")))

    let tagged: [(Note, Tag)] = try db.fetchAll(Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    // end snippet
    #expect(notes.map(\.id) == [2, 1])
    #expect(total == 2)
    #expect(archived == 1)
    #expect(deleted == 1)
    #expect(stats?.newest == 2)
    #expect(stats?.total == 2)
    #expect(tagged.map { $0.1.noteId } == [1, 2])
}

@Test("README: migrations from Swift") func readmeMigrations() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try FileManager.default.createDirectory(atPath: "Migrations/extra", withIntermediateDirectories: true)
    try Data("ALTER TABLE note ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;".utf8)
        .write(to: URL(fileURLWithPath: "Migrations/extra/0002_add_pinned.sql"))
    let db = try Database()
    // snippet: README.md 5
    try db.migrate(version: 1) { db in
        try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
    }
    try db.migrate(version: 2) { db in            // skipped when userVersion >= 2
        try db.execute(query: "ALTER TABLE note ADD COLUMN created_at TEXT")
    }

    var migrator = Migrator()
    migrator.register(version: 1, name: "create note") { db in
        try db.execute(query: """
            CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL)
            """)
    }
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/extra"))   // 0002_add_pinned.sql, ...
    let notes = try Database(path: "notes.sqlite")
    let applied = try migrator.migrate(notes)     // the versions this call applied: [1, 2]
    let status = try migrator.status(of: notes)   // currentVersion 2, applied [1, 2], pending []
    // end snippet
    #expect(try db.userVersion == 2)
    #expect(applied == [1, 2])
    #expect(status.currentVersion == 2)
    #expect(status.applied == [1, 2])
    #expect(status.pending.isEmpty)
}

@Test("README: server apps") func readmeServerApps() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: README.md 6
    struct Note: Model, Sendable {
        static let tableName = "note"
        static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
        var id: Int64?
        var createdAt: Date
        var content: String
    }

    var migrator = Migrator()
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))   // this repository's schema
    let pool = try DatabasePool(path: "app.sqlite", readers: 4)
    try await migrator.migrate(pool)                          // on the writer, each step in its own transaction

    // In a request handler (Hummingbird, Vapor, plain SwiftNIO):
    func createNote(content: String) async throws -> Note {
        var note = Note(id: nil, createdAt: Date(), content: content)
        try await pool.write { db in try db.insert(&note) }     // a transaction: commits, or rolls back on throw
        return note                                             // note.id is filled in
    }

    func listNotes() async throws -> [Note] {
        try await pool.read { db in try db.fetchAll(Note.self) } // parallel with other reads and the writer
    }
    // end snippet
    let first = try await createNote(content: "one")
    let second = try await createNote(content: "two")
    #expect(first.id == 1)
    #expect(second.id == 2)
    let listed = try await listNotes()
    #expect(listed.map(\.content) == ["one", "two"])
    #expect(listed.map(\.id) == [1, 2])
    await pool.close()
}

@Test("README: a pausable import") func readmePausableImport() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    struct Note: Model, Sendable {    // the model of the block above
        static let tableName = "note"
        static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
        var id: Int64?
        var createdAt: Date
        var content: String
    }
    var migrator = Migrator()
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    try await migrator.migrate(pool)
    // snippet: README.md 7
    let lines = ["first", "second", "third"]        // an import: a million lines works the same way
    var imported = 0
    try await pool.pausableWrite { db, stop, isNewTransaction in
        var note = Note(id: nil, createdAt: Date(), content: lines[imported])
        try db.insert(&note)
        imported += 1
        stop = imported == lines.count
    }
    // end snippet
    #expect(imported == 3)
    let contents = try await pool.read { db in try db.fetchAll(Note.self).map(\.content) }
    #expect(contents == ["first", "second", "third"])
    await pool.close()
}
