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
        first.reset()
        let second = try db.cachedStatement(query: "SELECT id FROM note WHERE score > :min ORDER BY id")
        #expect(first === second)
        // The old value is gone: NULL matches nothing.
        #expect(try second.next() == nil)
        try second.bind(value: 0, for: "min")
        #expect(try second.next()?[0] as Int64? == 1)
    }

    @Test func aStatementThatIsStillSteppingIsNeverHandedOutAgain() throws {
        let db = try QueryFixtures.database()
        let sql = "SELECT id FROM note WHERE score > :min ORDER BY id"
        let first = try db.cachedStatement(query: sql)
        try first.bind(value: 10, for: "min")
        #expect(try first.next()?[0] as Int64? == 2)
        let second = try db.cachedStatement(query: sql)
        #expect(first !== second)
        try second.bind(value: 0, for: "min")
        #expect(try second.next()?[0] as Int64? == 1)
        // The first goes on where it was.
        #expect(try first.next()?[0] as Int64? == 4)
    }

    @Test func aRecursiveWalkOverOneCachedSQLVisitsEveryNode() throws {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE node (id INTEGER PRIMARY KEY, parent INTEGER);
                INSERT INTO node VALUES (1, NULL), (2, 1), (3, 1), (4, 2), (5, 2), (6, 3);
                """)
        func walk(_ parent: Int64, into visited: inout [Int64]) throws {
            let children = try db.cachedStatement(query: "SELECT id FROM node WHERE parent = :parent ORDER BY id")
            try children.bind(value: parent, for: "parent")
            while let row = try children.next() {
                let id: Int64 = try row[0]
                visited.append(id)
                try walk(id, into: &visited)
            }
        }
        var visited: [Int64] = []
        try walk(1, into: &visited)
        #expect(visited == [2, 4, 5, 3, 6])
    }

    @Test func aFetchOfTheSameSQLInsideALoopOverItLeavesTheLoopWhereItWas() throws {
        let db = try QueryFixtures.database()
        let sql = "SELECT id FROM note WHERE id <= :last ORDER BY id"
        let loop = try db.cachedStatement(query: sql)
        try loop.bind(value: 4, for: "last")
        var seen: [Int64] = []
        var inner: [[Int64]] = []
        while let row = try loop.next() {
            seen.append(try row[0])
            inner.append(try db.fetchAll(Int64.self, query: sql, parameters: ["last": 1]))
        }
        #expect(seen == [1, 2, 3, 4])
        #expect(inner == Array(repeating: [1], count: 4))
    }

    @Test func aBoundStatementKeepsItsValuesWhenTheSameSQLRunsMeanwhile() throws {
        let db = try QueryFixtures.database()
        let sql = "INSERT INTO tag (noteId, name) VALUES (1, :name)"
        let insert = try db.cachedStatement(query: sql)
        try insert.bind(value: "mine", for: "name")
        try db.execute(query: sql, parameters: ["name": "theirs"])
        try insert.perform()
        #expect(
            try db.fetchAll(String.self, query: "SELECT name FROM tag WHERE id > 3 ORDER BY id") == ["theirs", "mine"])
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
