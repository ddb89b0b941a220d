// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of docs/Observation.md, run as written (see DocSnippetSupport.swift).

/// Creates app.sqlite with a `note` table.
private func makeNoteDatabase() throws {
    let db = try Database(path: "app.sqlite")
    try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, mood TEXT NOT NULL)")
    db.close()
}

@Test("Observation.md: a request's records, then again after a commit") func observationRequest() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try makeNoteDatabase()
    // snippet: docs/Observation.md 1
    struct Note: Model, Equatable {
        static let tableName = "note"
        var id: Int64?
        var content: String
        var mood: String
    }

    let pool = try DatabasePool(path: "app.sqlite")
    let feed = Task {
        for try await notes in pool.observe(Note.filter(Column("mood") == "happy").order(Column("id"))) {
            print(notes.map(\.content))      // [], then ["hello"]
            if notes.count == 1 { break }
        }
    }
    try await pool.write { db in try db.insert(Note(id: nil, content: "hello", mood: "happy")) }
    try await feed.value
    // end snippet
    #expect(try await pool.read { db in try db.fetchCount(Note.all()) } == 1)
    await pool.close()
}

@Test("Observation.md: any read, observed") func observationBlock() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    try makeNoteDatabase()
    struct Note: Model {    // the model the block takes as given
        static let tableName = "note"
        var id: Int64?
        var content: String
        var mood: String
    }
    let pool = try DatabasePool(path: "app.sqlite")
    let writer = Task {
        try await Task.sleep(for: .milliseconds(20))
        try await pool.write { db in try db.insert(Note(id: nil, content: "hello", mood: "happy")) }
    }
    // snippet: docs/Observation.md 2
    for try await count in pool.observe({ db in try db.fetchCount(Note.all()) }) {
        print("\(count) notes")
        if count > 0 { break }
    }
    // end snippet
    // The loop ended: it saw the writer's commit.
    try await writer.value
    #expect(try await pool.read { db in try db.fetchCount(Note.all()) } == 1)
    await pool.close()
}

@Test("Observation.md: a queue checking for other processes' commits every 250 ms")
func observationInterval() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Observation.md 3
    let queue = try DatabaseQueue(path: "app.sqlite", otherProcessCheckInterval: .milliseconds(250))
    // end snippet
    try await queue.write { db in try db.execute(query: "CREATE TABLE t (x)") }
    await queue.close()
}
