import Foundation
import Strata
import Testing

@Suite("Query: cached statements by hand")
struct CachedStatementTests {
    @Test func theSameSQLGivesTheSameStatementResetWithClearedBindings() throws {
        let db = try QueryFixtures.database()
        let first = try db.cachedStatement(query: "SELECT id FROM note WHERE score > :min ORDER BY id")
        try first.bind(value: 10, for: "min")
        #expect(try first.next()?[0] as Int64? == 2)
        let second = try db.cachedStatement(query: "SELECT id FROM note WHERE score > :min ORDER BY id")
        #expect(first === second)
        // Reset to the first row, and the old value is gone: NULL matches nothing.
        #expect(try second.next() == nil)
        try second.bind(value: 0, for: "min")
        #expect(try second.next()?[0] as Int64? == 1)
    }

    @Test func aHotLoopInsertsWithoutRecompiling() throws {
        let db = try QueryFixtures.database()
        for name in ["a", "b", "c"] {
            let insert = try db.cachedStatement(query: "INSERT INTO tag (noteId, name) VALUES (1, :name)")
            try insert.bind(value: name, for: "name")
            try insert.perform()
        }
        #expect(
            try db.fetchAll(String.self, query: "SELECT name FROM tag WHERE id > 3 ORDER BY id") == ["a", "b", "c"])
    }

    @Test func badSQLThrowsAndIsNotCached() throws {
        let db = try QueryFixtures.database()
        expectError(.sqlite) { _ = try db.cachedStatement(query: "SELEC 1") }
        expectError(.sqlite) { _ = try db.cachedStatement(query: "SELEC 1") }
    }
}
