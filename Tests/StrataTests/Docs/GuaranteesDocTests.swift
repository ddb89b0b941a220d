// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of docs/Guarantees.md, run as written (see DocSnippetSupport.swift).

@Test("Guarantees.md: synchronous = NORMAL") func guaranteesSynchronousNormal() async throws {
    let scratch = try await ScratchDirectory.enter()
    defer { scratch.leave() }
    // snippet: docs/Guarantees.md 1
    let db = try Database(path: "app.sqlite")
    try db.execute(query: "PRAGMA synchronous = NORMAL")   // per connection
    // end snippet
    #expect(try db.fetchOne(Int.self, query: "PRAGMA synchronous") == 1)
}
