// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Logging
import Strata
import Testing

// The Swift blocks of docs/Operations.md, run as written (see DocSnippetSupport.swift).

// In the suite of the observability tests, which runs its tests one at a time: the pool below records metrics in the
// process's metrics backend, which those tests read.
extension ObservabilityTests {
    @Test("Operations.md: logs, spans and metrics") func operationsObservability() async throws {
        let scratch = try await ScratchDirectory.enter()
        defer { scratch.leave() }
        // snippet: docs/Operations.md 1
        var logger = Logger(label: "notes.db")
        logger.logLevel = .trace
        let pool = try DatabasePool(
            path: "notes.sqlite",
            observability: DatabaseObservability(
                logger: logger,
                slowStatementThreshold: .milliseconds(200),
                tracing: true,
                metrics: true))
        try await pool.write { db in
            try db.execute(query: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
            try db.execute(query: "INSERT INTO note (content) VALUES (?)", parameters: "hello")
        }
        await pool.close()
        // end snippet
        #expect(pool.isClosed)
        #expect(pool.observability.logger?.logLevel == .trace)
        #expect(pool.observability.slowStatementThreshold == .milliseconds(200))
        let db = try Database(path: "notes.sqlite")
        #expect(try db.fetchAll(String.self, query: "SELECT content FROM note") == ["hello"])
    }
}

@Test("Operations.md: online backup") func operationsBackup() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Operations.md 2
    let db = try Database(path: "notes.sqlite")
    try db.execute(query: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
    let copied = try db.backup(to: "notes-backup.sqlite", pagesPerStep: 100) { progress in
        print("\(progress.copiedPages) of \(progress.totalPages) pages")
    }
    print(copied.isComplete)   // true
    // end snippet
    #expect(copied.isComplete)
    #expect(copied.remainingPages == 0)
    let copy = try Database(path: "notes-backup.sqlite")
    #expect(try copy.integrityCheck() == ["ok"])
    #expect(try copy.fetchOne(Int.self, query: "SELECT count(*) FROM note") == 0)
}

@Test("Operations.md: batch writes and RETURNING") func operationsBatch() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Operations.md 3
    struct Note: Model {
        static let tableName = "note"
        var id: Int64?
        var content: String
    }
    let db = try Database()
    try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
    var notes = (1...3).map { Note(id: nil, content: "note \($0)") }
    try db.insert(contentsOf: &notes)
    print(notes.map(\.id))   // [Optional(1), Optional(2), Optional(3)]

    let archived = try db.fetchAll(
        Note.self, query: "UPDATE note SET content = content || ' (archived)' WHERE id > 1 RETURNING *")
    print(archived.map(\.content))   // ["note 2 (archived)", "note 3 (archived)"]
    // end snippet
    #expect(notes.map(\.id) == [1, 2, 3])
    #expect(archived.map(\.content) == ["note 2 (archived)", "note 3 (archived)"])
}

@Test("Operations.md: streaming reads") func operationsStreaming() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Operations.md 4
    struct Note: Model, Sendable {
        static let tableName = "note"
        var id: Int64?
        var content: String
    }
    let pool = try DatabasePool(path: "notes.sqlite")
    try await pool.write { db in
        try db.execute(query: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
        try db.insert(contentsOf: (1...1000).map { Note(id: nil, content: "note \($0)") })
    }
    var count = 0
    for try await note in pool.stream(Note.order(Column("id"))) {
        count += 1
        if note.id == 500 { break }     // the reader goes back to the pool at once
    }
    print(count)   // 500
    await pool.close()
    // end snippet
    #expect(count == 500)
    #expect(pool.isClosed)
}

@Test("Operations.md: streaming through the shared protocol") func operationsStreamingGeneric() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Operations.md 5
    func exportContents(of db: some DatabaseReader) async throws -> Int {
        var count = 0
        for try await content in db.stream(String.self, "SELECT content FROM note ORDER BY id") {
            count += content.isEmpty ? 0 : 1
        }
        return count
    }
    // end snippet
    let pool = try DatabasePool(path: "notes.sqlite")
    try await pool.write { db in
        try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
        try db.execute(query: "INSERT INTO note (content) VALUES ('a'), (''), ('c')")
    }
    #expect(try await exportContents(of: pool) == 2)
    await pool.close()
}

@Test("Operations.md: synchronous") func operationsSynchronous() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Operations.md 6
    let pool = try DatabasePool(path: "notes.sqlite", synchronous: .normal)
    let mode = try await pool.write { db in try db.synchronous }   // .normal
    await pool.close()
    // end snippet
    #expect(mode == .normal)
}
