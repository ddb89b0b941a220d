import Foundation
import Strata
import Testing

@Suite struct ArrayTests {
    @Test func arraysAreJSONTextByDefault() throws {
        let db = try makeDatabase()
        let result = try stored([1, 2, 3], in: db)
        #expect(result.type == "text")
        #expect(result.value == .text("[1,2,3]"))
        #expect(try roundTrip([1, 2, 3], in: db) == [1, 2, 3])
        #expect(try stored(["a/b", "c\"d"], in: db).value == .text(#"["a/b","c\"d"]"#))
    }

    @Test func jsonArraysWorkWithSQLiteJSONFunctions() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (tags TEXT)")
        let insert = try db.prepare(query: "INSERT INTO t VALUES (?)")
        try insert.bind(value: ["swift", "sqlite", "orm"], at: 1)
        try insert.perform()
        let row = try #require(
            try db.prepare(
                query: "SELECT json_extract(tags, '$[1]') AS second, json_array_length(tags) AS n FROM t"
            ).next())
        #expect(try row.second == "sqlite")
        #expect(try row.n == 3)
        let each = try db.prepare(query: "SELECT value FROM t, json_each(t.tags) ORDER BY value")
        #expect(try each.map { try $0.value as String } == ["orm", "sqlite", "swift"])
    }

    @Test func arraysAreBinaryPropertyListsOnRequest() throws {
        let db = try makeDatabase()
        db.arrayStrategy = .bplist
        let result = try stored(["a", "b"], in: db)
        #expect(result.type == "blob")
        guard case .blob(let data) = result.value else {
            Issue.record("expected a BLOB, got \(result.value)")
            return
        }
        #expect(data.starts(with: Array("bplist".utf8)))
        #expect(try roundTrip(["a", "b"], in: db) == ["a", "b"])
        let perStatement = try stored([1.5], in: try makeDatabase()) { $0.arrayStrategy = .bplist }
        #expect(perStatement.type == "blob")
    }

    @Test func readingAcceptsEitherFormWhateverTheStrategy() throws {
        let db = try makeDatabase()
        let json = try stored([4, 5], in: db).value
        let plist = try stored([4, 5], in: db) { $0.arrayStrategy = .bplist }.value
        #expect(try read([Int].self, from: json, in: db, configure: { $0.arrayStrategy = .bplist }) == [4, 5])
        #expect(try read([Int].self, from: plist, in: db) == [4, 5])
    }

    @Test(arguments: [ArrayStrategy.json, .bplist])
    func arraysOfManyElementTypesRoundTrip(strategy: ArrayStrategy) throws {
        let db = try makeDatabase()
        db.arrayStrategy = strategy
        #expect(try roundTrip([String](), in: db) == [])
        #expect(try roundTrip([true, false], in: db) == [true, false])
        #expect(try roundTrip([1.5, -0.25], in: db) == [1.5, -0.25])
        #expect(try roundTrip([Int64.min, Int64.max], in: db) == [Int64.min, Int64.max])
        #expect(try roundTrip([[1], [2, 3], []], in: db) == [[1], [2, 3], []])
        #expect(try roundTrip(["x", nil] as [String?], in: db) == ["x", nil])
        let uuids = [UUID(), UUID()]
        #expect(try roundTrip(uuids, in: db) == uuids)
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_709_214_330.25)]
        #expect(try roundTrip(dates, in: db) == dates)
    }

    @Test func optionalArrays() throws {
        let db = try makeDatabase()
        #expect(try stored(nil as [Int]?, in: db).value == .null)
        #expect(try roundTrip([1] as [Int]?, in: db) == [1])
        #expect(try read([Int]?.self, from: .null, in: db) == nil)
    }

    @Test func bytesAreABlob() throws {
        let db = try makeDatabase()
        let bytes: [UInt8] = [0, 1, 254, 255]
        let result = try stored(bytes, in: db)
        #expect(result.type == "blob")
        #expect(result.value == .blob(Data(bytes)))
        #expect(try roundTrip(bytes, in: db) == bytes)
        db.arrayStrategy = .bplist
        #expect(try stored(bytes, in: db).value == .blob(Data(bytes)))
        #expect(try read([UInt8].self, from: .blob(Data([7])), in: db) == [7])
        expectError(.typeMismatch) { _ = try read([UInt8].self, from: .integer(7), in: db) }
        expectError(.unexpectedNull) { _ = try read([UInt8].self, from: .null, in: db) }
    }

    @Test(arguments: [DatabaseValue.text("[1, 2"), .text("{\"a\": 1}"), .text("[\"x\"]"), .blob(Data([1, 2, 3]))])
    func malformedContentThrows(value: DatabaseValue) throws {
        let db = try makeDatabase()
        let error = expectError(.invalidValue) { _ = try read([Int].self, from: value, in: db) }
        #expect(error.text.contains("[Int]") || error.text.contains("Array<Int>"))
        #expect(error?.underlyingError != nil)
    }

    @Test func arraysFromNumbersOrNullThrow() throws {
        let db = try makeDatabase()
        expectError(.typeMismatch) { _ = try read([Int].self, from: .integer(1), in: db) }
        expectError(.typeMismatch) { _ = try read([Int].self, from: .real(1), in: db) }
        expectError(.unexpectedNull) { _ = try read([Int].self, from: .null, in: db) }
    }

    @Test func anArrayThatCannotBeEncodedThrowsWhenBound() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ?")
        let error = expectError(.invalidValue) { try statement.bind(value: [Double.infinity], at: 1) }
        #expect(error.text.contains("SELECT ?"))
    }

    @Test func anArrayReadFromARowNamesTheColumn() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT '[1,' AS tags").next())
        let error = expectError(.invalidValue) { let _: [Int] = try row.tags }
        #expect(error?.column == "tags")
        #expect(error.text.contains("TEXT"))
    }
}
