import Foundation
import Strata
import Testing

@Suite("Typed fetching")
struct FetchTests {
    struct Item: Codable, Equatable {
        var id: Int64
        var name: String
    }

    func database(rows: Int) throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
        try db.transaction { db in
            for id in 1...max(rows, 1) where rows > 0 {
                try db.execute(
                    query: "INSERT INTO item VALUES (:id, :name)", parameters: Item(id: Int64(id), name: "n\(id)"))
            }
        }
        return db
    }

    @Test func fetchAllAndFetchOne() throws {
        let db = try database(rows: 3)
        #expect(try db.fetchAll(Item.self, query: "SELECT * FROM item ORDER BY id").map(\.id) == [1, 2, 3])
        #expect(
            try db.fetchOne(Item.self, query: "SELECT * FROM item WHERE id = :id", parameters: ["id": 2])?.name == "n2")
        #expect(try db.fetchOne(Item.self, query: "SELECT * FROM item WHERE id = 99") == nil)
    }

    @Test func scalarFetchesAreNotAmbiguous() throws {
        let db = try database(rows: 2)
        let names: [String] = try db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY id")
        #expect(names == ["n1", "n2"])
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") == 2)
        #expect(try db.fetchAll(String?.self, query: "SELECT NULL UNION ALL SELECT 'x'") == [nil, "x"])
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT 1.5") == .real(1.5))
        #expect(try db.fetchAll(Date.self, query: "SELECT '2000-01-01'") == [Date(timeIntervalSince1970: 946_684_800)])
    }

    @Test func scalarFetchOfManyColumnsThrows() throws {
        let db = try database(rows: 1)
        let error = try #require(throws: DatabaseError.self) {
            try db.fetchAll(Int.self, query: "SELECT id, name FROM item")
        }
        #expect(error.code == .invalidArgument)
    }

    @Test func cursorDecodesLazilyAndCanStopEarly() throws {
        let db = try database(rows: 1000)
        let cursor = try db.fetchCursor(Item.self, query: "SELECT * FROM item ORDER BY id")
        var seen: [Int64] = []
        while let item = try cursor.next() {
            seen.append(item.id)
            if seen.count == 10 { break }
        }
        #expect(seen == Array(1...10))
        // The connection is free for other work while a cursor is open.
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") == 1000)
        #expect(try cursor.next()?.id == 11)
    }

    @Test func cursorOfScalars() throws {
        let db = try database(rows: 5)
        let cursor = try db.fetchCursor(Int64.self, query: "SELECT id FROM item ORDER BY id DESC")
        var ids: [Int64] = []
        try cursor.forEach { ids.append($0) }
        #expect(ids == [5, 4, 3, 2, 1])
        #expect(try cursor.next() == nil)
    }

    @Test func nestedFetchOfTheSameQueryInsideADecode() throws {
        let db = try database(rows: 3)
        let sql = "SELECT * FROM item ORDER BY id"
        let cursorIDs = try db.fetchAll(Item.self, query: sql).map { item -> Int in
            // Re-running the same (cached) query while its results are in use.
            try db.fetchAll(Item.self, query: sql).count + Int(item.id)
        }
        #expect(cursorIDs == [4, 5, 6])
    }

    @Test func executeWithParametersReportsConstraintViolations() throws {
        let db = try database(rows: 1)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute(query: "INSERT INTO item VALUES (:id, :name)", parameters: Item(id: 1, name: "dup"))
        }
        #expect(error.resultCode == .constraintPrimaryKey)
        try db.execute(query: "INSERT INTO item VALUES (:id, :name)", parameters: Item(id: 2, name: "ok"))
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") == 2)
    }

    @Test func fetchOnAClosedDatabaseThrows() throws {
        let db = try database(rows: 1)
        db.close()
        let error = try #require(throws: DatabaseError.self) { try db.fetchAll(Item.self, query: "SELECT * FROM item") }
        #expect(error.code == .connectionClosed)
    }
}

@Suite("Dictionaries of mixed values as parameters")
struct MixedParameterTests {
    @Test func aLiteralWithValuesOfSeveralTypesBindsEachByName() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE foo (name TEXT, age INTEGER, seen TEXT)")
        try db.execute(
            query: "INSERT INTO foo VALUES (:name, :age, :seen)",
            parameters: ["name": "Bar", "age": 42, "seen": Date(timeIntervalSince1970: 0)])
        try db.execute(
            query: "INSERT INTO foo VALUES (:name, :age, :seen)", parameters: ["name": "Baz", "age": nil, "seen": nil])
        #expect(
            try db.fetchAll(
                String.self, query: "SELECT name FROM foo WHERE age = :age AND name = :name",
                parameters: ["age": 42, "name": "Bar"]) == ["Bar"])
        #expect(
            try db.fetchOne(String.self, query: "SELECT seen FROM foo WHERE name = :name", parameters: ["name": "Bar"])
                == "1970-01-01 00:00:00.000")
        #expect(
            try db.fetchOne(
                Int?.self, query: "SELECT age FROM foo WHERE name = :n", parameters: ["n": "Baz", "unused": 1])
                == .some(nil))
    }

    @Test func aParameterTheDictionaryLacksThrows() throws {
        let db = try Database()
        #expect(throws: EncodingError.self) {
            try db.fetchAll(Int.self, query: "SELECT :a + :b", parameters: ["a": 1, "c": "x"])
        }
    }
}

@Suite("Cached statements and bindings")
struct CachedStatementBindingTests {
    @Test func aFetchWithoutParametersNeverReusesTheLastValues() throws {
        let db = try Database()
        let sql = "SELECT :x"
        #expect(try db.fetchOne(Int?.self, query: sql, parameters: ["x": 7]) == .some(7))
        // The same cached statement, now with no parameters: refused, never run with the 7 bound before (nor NULL).
        let error = #expect(throws: DatabaseError.self) { try db.fetchOne(Int?.self, query: sql) }
        #expect(error?.code == .unknownParameter)
        #expect(try db.fetchOne(Int?.self, query: sql, parameters: ["x": 8]) == .some(8))
    }
}
