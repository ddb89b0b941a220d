// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of docs/Concurrency.md, run as written (see DocSnippetSupport.swift).

/// Creates app.sqlite with a `note` table for `Note`.
private func makeAppDatabase() throws {
    let db = try Database(path: "app.sqlite")
    try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
    db.close()
}

@Test("Concurrency.md: the four calls") func concurrencyFourCalls() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try makeAppDatabase()
    struct Note: Model, Sendable {    // the model the block takes as given
        static let tableName = "note"
        var id: Int64?
        var content: String
    }
    var note = Note(id: nil, content: "hello")
    // snippet: docs/Concurrency.md 1
    let pool = try DatabasePool(path: "app.sqlite", readers: 4)

    try await pool.write { db in try db.insert(&note) }                  // transaction
    let notes = try await pool.read { db in try db.fetchAll(Note.self) }  // snapshot
    try await pool.writeWithoutTransaction { db in try db.vacuum() }      // no transaction
    await pool.close()
    // end snippet
    #expect(note.id == 1)
    #expect(notes.map(\.content) == ["hello"])
    #expect(pool.isClosed)
}

@Test("Concurrency.md: a failed statement fails the write; a nested transaction contains it")
func concurrencyFailedStatement() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try makeAppDatabase()
    struct Note: Model, Sendable {    // the model the block takes as given
        static let tableName = "note"
        var id: Int64?
        var content: String
    }
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    try await pool.write { db in
        try db.execute(query: "CREATE TABLE tag (noteId INTEGER NOT NULL, name TEXT NOT NULL UNIQUE)")
        try db.execute(query: "INSERT INTO tag (noteId, name) VALUES (1, 'dup')")
    }
    // snippet: docs/Concurrency.md 2
    try await pool.write { db in
        var note = Note(id: nil, content: "Hello")
        try db.insert(&note)
        do {
            try db.transaction { db in try db.execute(query: "INSERT INTO tag (noteId, name) VALUES (1, 'dup')") }
        } catch let error as DatabaseError where error.code == .uniqueViolation {
            // the tag exists: the note is still written
        }
    }
    // end snippet
    #expect(try await pool.read { db in try db.fetchAll(String.self, query: "SELECT content FROM note") } == ["Hello"])
    await pool.close()
}

@Test("Concurrency.md: a main-actor block") func concurrencyMainActor() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try makeAppDatabase()
    struct Note: Model, Sendable {    // the model the block takes as given
        static let tableName = "note"
        var id: Int64?
        var content: String
    }
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    try await pool.write { db in try db.insert(Note(id: nil, content: "hello")) }
    // snippet: docs/Concurrency.md 3
    @MainActor
    final class NoteList {
        var notes: [Note] = []
        let pool: DatabasePool

        init(pool: DatabasePool) { self.pool = pool }

        func refresh() async throws {
            notes = try await pool.read { @Sendable db in try db.fetchAll(Note.self) }
        }
    }
    // end snippet
    let list = await NoteList(pool: pool)
    try await list.refresh()
    #expect(await list.notes.map(\.content) == ["hello"])
    await pool.close()
}

@Test("Concurrency.md: a commit whose outcome is unknown") func concurrencyCommitOutcomeUnknown() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    try await pool.write { db in try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)") }
    // snippet: docs/Concurrency.md 4
    do {
        try await pool.write { db in try db.execute(query: "INSERT INTO item (name) VALUES ('a')") }
    } catch let error as DatabaseError where error.code == .commitOutcomeUnknown {
        // Read back what the write would have written before trying again.
    }
    // end snippet
    // Without a failing disk the write commits: the I/O fault tests (Tests/StrataFaultTests) cover the catch.
    #expect(try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") } == 1)
    await pool.close()
}

@Test("Concurrency.md: opening") func concurrencyOpening() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Concurrency.md 5
    let pool = try DatabasePool(path: "app.sqlite", readers: 8) { db in
        db.busyTimeout = 10
        db.dateStrategy = .integer
    }
    // end snippet
    #expect(try await pool.read { db in db.busyTimeout } == 10)
    #expect(try await pool.write { db in db.dateStrategy } == .integer)
    #expect(pool.readerCount == 8)
    await pool.close()
}

@Test("Concurrency.md: migrating in writeWithoutTransaction") func concurrencyMigrating() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    // snippet: docs/Concurrency.md 6
    var migrator = Migrator()
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    try await pool.writeWithoutTransaction { [migrator] db in try migrator.migrate(db) }
    try await migrator.migrate(pool)     // the same, through DatabaseWriter
    // end snippet
    #expect(try await pool.read { db in try db.userVersion } == 3)
    await pool.close()
}

@Test("Concurrency.md: queues") func concurrencyQueues() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Concurrency.md 7
    let memory = try DatabaseQueue()                      // in-memory
    let file = try DatabaseQueue(path: "app.sqlite")      // a file, WAL mode
    // end snippet
    #expect(memory.path == ":memory:")
    #expect(file.path == "app.sqlite")
    #expect(try await file.read { db in try db.journalMode } == .wal)
    await memory.close()
    await file.close()
}

@Test("Concurrency.md: a server") func concurrencyServer() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Concurrency.md 8
    struct Note: Model, Sendable {
        static let tableName = "note"
        static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
        var id: Int64?
        var createdAt: Date
        var content: String
        var updatedAt: Date?
    }

    /// What the request handlers call. `Sendable`: every handler shares the one pool.
    struct NoteStore: Sendable {
        let pool: DatabasePool

        static func open(path: String, migrations: URL) async throws -> NoteStore {
            let pool = try DatabasePool(path: path, readers: 8) { db in db.busyTimeout = 10 }
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrations)
            try await migrator.migrate(pool)
            return NoteStore(pool: pool)
        }

        /// GET /notes: on a reader, in parallel with other requests and with the writer.
        func list() async throws -> [Note] {
            try await pool.read { db in try db.fetchAll(Note.self) }
        }

        /// GET /notes/:id
        func note(id: Int64) async throws -> Note? {
            try await pool.read { db in try db.find(Note.self, id: id) }
        }

        /// POST /notes: one transaction, committed when the block returns, rolled back if it throws.
        func create(content: String) async throws -> Note {
            var note = Note(id: nil, createdAt: Date(), content: content)
            try await pool.write { db in try db.insert(&note) }
            return note    // with the id the insert filled in
        }
    }

    let store = try await NoteStore.open(path: "notes.sqlite", migrations: URL(fileURLWithPath: "Migrations"))
    let created = try await store.create(content: "Hello")
    let found = try await store.note(id: created.id ?? 0)
    let all = try await store.list()
    await store.pool.close()    // at shutdown, once the server has stopped taking requests
    // end snippet
    #expect(created.id == 1)
    #expect(found?.content == "Hello")
    #expect(all.map(\.content) == ["Hello"])
    // The row has the repository schema's snake_case columns, filled.
    let db = try Database(path: scratch.path("notes.sqlite"), readOnly: true)
    #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM note WHERE created_at IS NOT NULL") == 1)
}

@Test("Concurrency.md: a pausable import") func concurrencyPausableImport() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    struct Item: Model, Sendable {    // the model the block takes as given
        static let tableName = "item"
        var id: Int64?
        var name: String
    }
    let pool = try DatabasePool(path: "app.sqlite", readers: 1)
    try await pool.write { db in
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    }
    // snippet: docs/Concurrency.md 9
    let items = (1...10_000).map { Item(id: nil, name: "item \($0)") }
    var index = 0
    try await pool.pausableWrite { db, stop, isNewTransaction in
        if isNewTransaction {
            // The first call, and the first after each commit: another write may have run in between.
        }
        var item = items[index]
        try db.insert(&item)
        index += 1
        stop = index == items.count
    }
    // end snippet
    #expect(index == 10_000)
    let (count, last) = try await pool.read { db in
        (try db.fetchCount(Item.all()), try db.fetchOne(String.self, query: "SELECT name FROM item ORDER BY id DESC"))
    }
    #expect(count == 10_000)
    #expect(last == "item 10000")
    await pool.close()
}

@Test("Concurrency.md: a pausable transaction on one connection") func concurrencyPausableTransaction() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    let setup = try Database(path: "import.sqlite")
    try setup.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    setup.close()
    // snippet: docs/Concurrency.md 10
    let db = try Database(path: "import.sqlite")
    var row = 0
    try db.pausableTransaction(maxDuration: .milliseconds(200)) { db, stop, _ in
        try db.execute(query: "INSERT INTO item (name) VALUES (?)", parameters: "row \(row)")
        row += 1
        stop = row == 10_000
    }
    // end snippet
    #expect(row == 10_000)
    #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") == 10_000)
    #expect(db.isInTransaction == false)
    db.close()
}
