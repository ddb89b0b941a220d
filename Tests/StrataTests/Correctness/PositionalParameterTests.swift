import Foundation
import Strata
import Testing

/// An array given as parameters binds them in order. Before, `parameters: [2]` bound the JSON text `[2]` to `?`,
/// so `WHERE id = ?` matched nothing and the fetch returned nil without an error.
@Suite("Correctness: a list of parameters binds them in order")
struct PositionalParameterTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB);
                INSERT INTO t (name) VALUES ('a'), ('b'), ('c');
                """)
        return db
    }

    @Test func oneValueBindsTheOnlyParameter() throws {
        let db = try makeDatabase()
        #expect(try db.fetchOne(String.self, query: "SELECT name FROM t WHERE id = ?", parameters: [2]) == "b")
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM t WHERE id = ?", parameters: [3]) == ["c"])
    }

    @Test func valuesBindInOrder() throws {
        let db = try makeDatabase()
        let names = try db.fetchAll(
            String.self, query: "SELECT name FROM t WHERE id BETWEEN ? AND ? ORDER BY id", parameters: [1, 2])
        #expect(names == ["a", "b"])
        try db.execute(query: "UPDATE t SET name = ? WHERE id = ?", parameters: ["z", "3"])
        #expect(try db.fetchOne(String.self, query: "SELECT name FROM t WHERE id = 3") == "z")
        // Named parameters are numbered too, in the order they first appear.
        #expect(try db.fetchOne(String.self, query: "SELECT name FROM t WHERE id = :id", parameters: [1]) == "a")
    }

    @Test(arguments: [[1], [1, 2, 3]])
    func aListOfTheWrongLengthThrowsAndChangesNothing(values: [Int]) throws {
        let db = try makeDatabase()
        #expect(throws: EncodingError.self) {
            try db.execute(query: "UPDATE t SET name = 'x' WHERE id IN (?, ?)", parameters: values)
        }
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM t ORDER BY id") == ["a", "b", "c"])
    }

    @Test func aValueThatIsNotStorableInTheListThrows() throws {
        struct Point: Encodable { var x: Int }
        let db = try makeDatabase()
        let error = #expect(throws: EncodingError.self) {
            try db.fetchAll(String.self, query: "SELECT name FROM t WHERE id = ?", parameters: [Point(x: 1)])
        }
        #expect("\(String(describing: error))".contains("value 1 of the list is a Point"))
    }

    @Test func bytesStillBindOneBlob() throws {
        let db = try makeDatabase()
        let bytes: [UInt8] = [1, 2, 3]
        try db.execute(query: "UPDATE t SET data = ? WHERE id = 1", parameters: bytes)
        #expect(try db.fetchOne(Data.self, query: "SELECT data FROM t WHERE id = 1") == Data([1, 2, 3]))
    }

    @Test func optionalsBindNull() throws {
        let db = try makeDatabase()
        let values: [String?] = [nil, "b"]
        try db.execute(query: "UPDATE t SET name = ? WHERE name = ?", parameters: values)
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM t WHERE name IS NULL") == 1)
    }
}
