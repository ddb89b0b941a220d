// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
import Foundation
import Strata
import Testing

// The Swift blocks of docs/Queries.md, run as written (see DocSnippetSupport.swift).

/// The guide's two tables, with five notes and tags on notes 1, 1 and 2.
private func queriesDatabase() throws -> Database {
    let db = try Database()
    try db.execute(query: """
        CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, mood TEXT NOT NULL,
                           score INTEGER NOT NULL, archivedAt TEXT);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, noteId INTEGER NOT NULL, name TEXT NOT NULL);
        INSERT INTO note (content, mood, score) VALUES
            ('swift is fun', 'happy', 10), ('sqlite is small', 'happy', 20), ('rainy day', 'sad', 5),
            ('Swift concurrency', 'happy', 30), ('bugs', 'sad', 1);
        INSERT INTO tag (noteId, name) VALUES (1, 'swift'), (1, 'lang'), (2, 'db');
        """)
    return db
}

@Test("Queries.md: all blocks in one scope") func queriesGuide() async throws {
    let db = try queriesDatabase()
    // snippet: docs/Queries.md 1
    struct Note: Model {
        static let tableName = "note"
        var id: Int64?
        var content: String
        var mood: String
        var score: Int
        var archivedAt: Date?
    }

    struct Tag: Model {
        static let tableName = "tag"
        var id: Int64?
        var noteId: Int64
        var name: String
    }
    // end snippet
    do {
        // snippet: docs/Queries.md 2
        let minimum = 5
        let request = Note
            .filter(Column("mood") == "happy" && Column("archivedAt") == nil)
            .filter(Column("content").like("%swift%"))
            .filter([1, 2, 3].contains(Column("id")))                            // IN (?, ?, ?)
            .filter(sql: "length(content) > :n", parameters: ["n": 3])          // a raw fragment, values bound
            .filter("score >= \(minimum)")                                      // raw SQL, interpolated values bound
            .order(Column("score").desc, Column("id"))
            .limit(10, offset: 0)
        print(request.sql)
        // SELECT "note".* FROM "note" WHERE (("note"."mood" = ?) AND ("note"."archivedAt" IS NULL))
        // AND ("note"."content" LIKE ?) AND ("note"."id" IN (?, ?, ?)) AND (length(content) > :n)
        // AND (score >= ?) ORDER BY "note"."score" DESC, "note"."id" LIMIT ? OFFSET ?
        // end snippet
        #expect(try db.fetchAll(request).map(\.id) == [1])
        #expect(request.sql.hasSuffix(#"ORDER BY "note"."score" DESC, "note"."id" LIMIT ? OFFSET ?"#))
    }
    do {
        // snippet: docs/Queries.md 3
        let happy = Note.filter(Column("mood") == "happy").order(Column("id"))
        let notes = try db.fetchAll(happy)             // [Note]
        let first = try db.fetchOne(happy)             // Note?
        let count = try db.fetchCount(happy)           // Int
        let cursor = try db.fetchCursor(happy)         // lazy: one row decoded per next()
        while let note = try cursor.next() {
            print(note.content)
        }
        let updated = try db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "happy"))
        let bumped = try db.updateAll(Note.filter(Column("id") == 1), Column("score").set(to: Column("score") + 1))
        let deleted = try db.deleteAll(Note.filter(Column("score") < 2))
        // end snippet
        #expect(notes.map(\.id) == [1, 2, 4])
        #expect(first?.id == 1)
        #expect(count == 3)
        #expect(updated == 2)
        #expect(bumped == 1)
        #expect(deleted == 1)
        #expect(try db.fetchOne(Note.self, query: "SELECT * FROM note WHERE id = 1")?.score == 11)
    }
    do {
        // snippet: docs/Queries.md 4
        struct Stats: Decodable { var newest: Int64; var total: Int }
        let stats = try db.fetchOne(Stats.self, Note.select(max(Column("id")).forKey("newest"),
                                                            count(Column("id")).forKey("total")))
        let newest = try db.fetchOne(Int64.self, Note.select(max(Column("id"))))
        let moods = try db.fetchAll(String.self, Note.select(Column("mood")).group(Column("mood")).order(Column("mood")))
        // end snippet
        #expect(stats?.newest == 4)
        #expect(stats?.total == 4)
        #expect(newest == 4)
        #expect(moods == ["happy"])
    }
    do {
        // snippet: docs/Queries.md 5
        let pairs: [(Note, Tag)] = try db.fetchAll(Note.self, Tag.self, query: """
            SELECT note.*, tag.* FROM note JOIN tag ON tag.noteId = note.id ORDER BY tag.id
            """)
        let chains: [(Note, Note)] = try db.fetchAll(Note.self, Note.self, query: """
            SELECT a.*, b.* FROM note a JOIN note b ON b.id = a.id + 1
            """)
        let mood = "happy"
        let happyTags: [(Note, Tag)] = try db.fetchAll(Note.self, Tag.self, """
            SELECT note.*, tag.* FROM note JOIN tag ON tag.noteId = note.id WHERE note.mood = \(mood)
            """)   // SQL written with interpolation: the value is bound
        // end snippet
        #expect(pairs.map(\.1.name) == ["swift", "lang", "db"])
        #expect(chains.map { [$0.0.id, $0.1.id] } == [[1, 2], [2, 3], [3, 4]])
        #expect(happyTags.map(\.1.name) == ["swift", "lang", "db"])
    }
    do {
        // snippet: docs/Queries.md 6
        let onTag = Column("noteId", table: Tag.self) == Column("id")
        let tagged: [(Note, Tag)] = try db.fetchAll(Note.joining(Tag.self, on: onTag).filter(Column("mood") == "happy"))
        let all: [(Note, Tag?)] = try db.fetchAll(Note.leftJoining(Tag.self, on: onTag))   // nil: no tag
        // end snippet
        #expect(tagged.map(\.1.name) == ["swift", "lang", "db"])
        #expect(all.count == 5)
        #expect(all.filter { $0.1 == nil }.map(\.0.id) == [3, 4])
    }
    do {
        // snippet: docs/Queries.md 7
        let next = Note.aliased("next")
        let followed: [(Note, Note)] = try db.fetchAll(
            Note.joining(next, on: Column("id", table: next) == Column("id") + 1).filter(Column("mood", table: next) == "happy"))
        // end snippet
        #expect(followed.map { [$0.0.id, $0.1.id] }.sorted { ($0[0] ?? 0) < ($1[0] ?? 0) } == [[1, 2], [2, 3], [3, 4]])
    }
    do {
        // snippet: docs/Queries.md 8
        let large = Note.filter(Column("score") > Decimal(12.5))                           // by value
        let byAmount = Note.order(Column("score").collating(.decimal).desc)                  // by value
        let largest = try db.fetchOne(Int.self, Note.select(max(Column("score").collating(.decimal))))
        // end snippet
        #expect(try db.fetchAll(large).map(\.id) == [2, 4])
        #expect(try db.fetchAll(byAmount).map(\.id) == [4, 2, 1, 3])
        #expect(largest == 30)
    }
    do {
        // snippet: docs/Queries.md 9
        for name in ["swift", "sqlite"] {
            let insert = try db.cachedStatement(query: "INSERT INTO tag (noteId, name) VALUES (1, :name)")
            try insert.bind(value: name, for: "name")
            try insert.perform()
        }
        // end snippet
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM tag WHERE id > 3 ORDER BY id") == ["swift", "sqlite"])
    }
    do {
        // snippet: docs/Queries.md 10
        try db.createFunction("slugify", argumentCount: 1, deterministic: true) { args in
            .text(try String(databaseValue: args[0]).lowercased().replacingOccurrences(of: " ", with: "-"))
        }
        try db.createCollation("unicode_ci") { a, b in a.caseInsensitiveCompare(b) }
        try db.useUnicodeCaseFunctions()  // upper()/lower() over all of Unicode

        let slug = try db.fetchOne(String.self, query: "SELECT slugify('Hello World')")          // "hello-world"
        let names = try db.fetchAll(String.self, query: "SELECT name FROM tag ORDER BY name COLLATE unicode_ci")
        let loud = try db.fetchOne(String.self, query: "SELECT upper('émile')")                   // "ÉMILE"
        // end snippet
        #expect(slug == "hello-world")
        #expect(names == ["db", "lang", "sqlite", "swift", "swift"])
        #expect(loud == "ÉMILE")
    }
}
