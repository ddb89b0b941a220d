import Foundation
import Strata
import Testing

@Suite("StatementEncoder")
struct StatementEncoderTests {
    struct Person: Codable {
        var name: String
        var age: Int?
    }

    func database() throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE person (name TEXT, age INTEGER)")
        return db
    }

    @Test func keysWithoutParametersAreSkipped() throws {
        let db = try database()
        let insert = try db.prepare(query: "INSERT INTO person (name) VALUES (:name)")
        try StatementEncoder().encode(Person(name: "Ada", age: 36), to: insert)
        try insert.perform()
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM person") == ["Ada"])
        #expect(try db.fetchOne(Int?.self, query: "SELECT age FROM person") == .some(nil))
    }

    @Test func aParameterTheValueLeavesUnboundThrows() throws {
        struct NameOnly: Codable { var name: String }
        let db = try database()
        let insert = try db.prepare(query: "INSERT INTO person VALUES (:name, :age)")
        let error = try #require(throws: EncodingError.self) {
            try StatementEncoder().encode(NameOnly(name: "Ada"), to: insert)
        }
        #expect(String(describing: error).contains(":age"))
    }

    @Test func reuseNeverBindsAStaleValue() throws {
        struct NameOnly: Codable { var name: String }
        let db = try database()
        let insert = try db.prepare(query: "INSERT INTO person VALUES (:name, :age)")
        try StatementEncoder().encode(Person(name: "Ada", age: 36), to: insert)
        try insert.perform()
        // The second value has no age: the encoder throws rather than reuse 36.
        #expect(throws: EncodingError.self) { try StatementEncoder().encode(NameOnly(name: "Bob"), to: insert) }
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM person") == 1)
    }

    @Test func nilOptionalsBindNullOnReuse() throws {
        let db = try database()
        let insert = try db.prepare(query: "INSERT INTO person VALUES (:name, :age)")
        let encoder = StatementEncoder()
        try encoder.encode(Person(name: "Ada", age: 36), to: insert)
        try insert.perform()
        try encoder.encode(Person(name: "Bob", age: nil), to: insert)
        try insert.perform()
        let ages = try db.fetchAll(Int?.self, query: "SELECT age FROM person ORDER BY name")
        #expect(ages == [36, nil])
    }

    /// Every `encodeIfPresent` overload binds NULL for a nil: none skips its parameter.
    @Test func everyOptionalTypeBindsNullForNil() throws {
        struct Optionals: Encodable {
            var b: Bool?, s: String?, d: Double?, f: Float?, i: Int?, i8: Int8?, i16: Int16?, i32: Int32?, i64: Int64?
            var u: UInt?, u8: UInt8?, u16: UInt16?, u32: UInt32?, u64: UInt64?, date: Date?
        }
        let db = try Database()
        let select = try db.prepare(
            query: "SELECT :b, :s, :d, :f, :i, :i8, :i16, :i32, :i64, :u, :u8, :u16, :u32, :u64, :date")
        try StatementEncoder().encode(Optionals(), to: select)
        let row = try #require(try select.next())
        let values: [DatabaseValue] = try (0..<15).map { try row[$0] }
        #expect(values == Array(repeating: .null, count: 15))
    }

    @Test func dictionariesAreParameterSets() throws {
        let db = try database()
        try db.execute(query: "INSERT INTO person VALUES (:name, :age)", parameters: ["name": "Ada", "age": "36"])
        let values: [String: DatabaseValue] = ["name": "Bob", "age": 30]
        try db.execute(query: "INSERT INTO person VALUES (:name, :age)", parameters: values)
        let people = try db.fetchAll(
            Person.self, query: "SELECT * FROM person WHERE age >= :age ORDER BY name", parameters: ["age": 30])
        #expect(people.map(\.name) == ["Ada", "Bob"])
        #expect(people.map(\.age) == [36, 30])
    }

    @Test func prefixesAndDuplicateNamesAllBind() throws {
        let db = try Database()
        let select = try db.prepare(query: "SELECT :a, @a, $b")
        try StatementEncoder().encode(["a": 1, "b": 2], to: select)
        let row = try #require(try select.next())
        #expect(try row[0] as Int == 1)
        #expect(try row[1] as Int == 1)
        #expect(try row[2] as Int == 2)
    }

    @Test func snakeCaseKeyStrategy() throws {
        struct Note: Codable { var createdAt: Date; var noteText: String }
        let db = try Database()
        try db.execute(query: "CREATE TABLE note (created_at TEXT, note_text TEXT)")
        var encoder = StatementEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let note = Note(createdAt: Date(timeIntervalSince1970: 0), noteText: "hi")
        try db.execute(query: "INSERT INTO note VALUES (:created_at, :note_text)", parameters: note, encoder: encoder)
        #expect(try db.fetchOne(String.self, query: "SELECT created_at FROM note") == "1970-01-01 00:00:00.000")
    }

    @Test func unsignedAboveInt64MaxThrowsNamingTheParameter() throws {
        struct Big: Codable { var value: UInt64 }
        let db = try Database()
        let select = try db.prepare(query: "SELECT :value")
        let error = try #require(throws: EncodingError.self) {
            try StatementEncoder().encode(Big(value: .max), to: select)
        }
        #expect(String(describing: error).contains(":value"))
        try StatementEncoder().encode(Big(value: UInt64(Int64.max)), to: select)
        #expect(try select.singleInt() == Int64.max)
    }

    @Test func aSingleValueBindsTheOnlyParameter() throws {
        let db = try Database()
        let select = try db.prepare(query: "SELECT :x")
        try StatementEncoder().encode(42, to: select)
        #expect(try select.singleInt() == 42)
        let two = try db.prepare(query: "SELECT :x, :y")
        #expect(throws: EncodingError.self) { try StatementEncoder().encode(42, to: two) }
    }

    @Test func encodingAfterCloseThrows() throws {
        let db = try database()
        let insert = try db.prepare(query: "INSERT INTO person VALUES (:name, :age)")
        db.close()
        let error = try #require(throws: DatabaseError.self) {
            try StatementEncoder().encode(Person(name: "Ada", age: 1), to: insert)
        }
        #expect(error.code == .connectionClosed)
    }
}

extension Statement {
    /// The first column of the first row as Int64, for tests.
    func singleInt() throws -> Int64 {
        reset()
        let row = try #require(try next())
        return try row[0]
    }
}
