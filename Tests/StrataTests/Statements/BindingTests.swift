import Foundation
import Strata
import Testing

@Suite struct BindingTests {
    @Test(arguments: [":", "@", "$"])
    func namedParametersBindWithoutTheirPrefix(prefix: String) throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT \(prefix)name AS name, \(prefix)age AS age")
        try statement.bind(value: "Bar", for: "name")
        try statement.bind(value: 42, for: "age")
        let row = try #require(try statement.next())
        #expect(try row.name == "Bar")
        #expect(try row.age == 42)
    }

    @Test(arguments: [":name", "@name", "$name"])
    func aNameMayCarryAPrefix(name: String) throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :name AS v")
        try statement.bind(value: "x", for: name)
        #expect(try statement.next()?.v == "x")
    }

    @Test func positionalParametersCountFromOne() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ? AS a, ? AS b, :c AS c")
        try statement.bind(value: "one", at: 1)
        try statement.bind(value: 2, at: 2)
        try statement.bind(value: 3.5, at: 3)
        let row = try #require(try statement.next())
        #expect(try row.a == "one")
        #expect(try row.b == 2)
        #expect(try row.c == 3.5)
    }

    @Test func numberedParametersBindByIndex() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ?2 AS second, ?1 AS first")
        try statement.bind(value: "a", at: 1)
        try statement.bind(value: "b", at: 2)
        let row = try #require(try statement.next())
        #expect(try row.first == "a")
        #expect(try row.second == "b")
    }

    @Test func aNameUsedTwiceBindsEveryUse() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :v AS a, :v + 1 AS b, @v AS c")
        try statement.bind(value: 10, for: "v")
        let row = try #require(try statement.next())
        #expect(try row.a == 10)
        #expect(try row.b == 11)
        #expect(try row.c == 10)
    }

    @Test func aDictionaryBindsByName() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :name AS name, :age AS age, :note AS note")
        try statement.bind(["name": "Bar", "age": 42, "note": nil as String?])
        let row = try #require(try statement.next())
        #expect(try row.name == "Bar")
        #expect(try row.age == 42)
        let note: String? = try row.note
        #expect(note == nil)
    }

    @Test func anArrayBindsByPosition() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ? AS a, ? AS b")
        try statement.bind(["x", 7])
        let row = try #require(try statement.next())
        #expect(try row.a == "x")
        #expect(try row.b == 7)
    }

    // MARK: Unknown parameters

    @Test func anUnknownNameThrows() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :name, :age")
        let error = expectError(.unknownParameter) { try statement.bind(value: 1, for: "nmae") }
        #expect(error.text.contains("\"nmae\""))
        #expect(error.text.contains(":age"))
        #expect(error?.sql == "SELECT :name, :age")
        let noNames = try db.prepare(query: "SELECT ?")
        let positional = expectError(.unknownParameter) { try noNames.bind(value: 1, for: "x") }
        #expect(positional.text.contains("no named parameters"))
    }

    @Test("a parameter in SQL given no values is refused, never run as NULL, and the statement writes nothing")
    func aParameterWithoutValuesThrows() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (n INTEGER)")
        try db.execute(query: "INSERT INTO t VALUES (1)")
        let fetch = expectError(.unknownParameter) {
            _ = try db.fetchAll(Int.self, query: "SELECT n FROM t WHERE n IS :n")
        }
        #expect(fetch.text.contains("no value for the parameter :n"))
        let one = expectError(.unknownParameter) { _ = try db.fetchOne(Int.self, query: "SELECT ?2") }
        #expect(one.text.contains("?2"))
        let anonymous = expectError(.unknownParameter) { _ = try db.fetchCursor(Int.self, query: "SELECT ?") }
        #expect(anonymous.text.contains("at index 1"))
        let script = expectError(.unknownParameter) {
            try db.execute(query: "INSERT INTO t VALUES (2); INSERT INTO t VALUES (@n); INSERT INTO t VALUES (3)")
        }
        #expect(script?.sql?.trimmingCharacters(in: .whitespaces) == "INSERT INTO t VALUES (@n);")
        // The statements before it ran; it and those after it did not.
        #expect(try db.fetchAll(Int?.self, query: "SELECT n FROM t ORDER BY n") == [1, 2])
    }

    @Test func aDictionaryWithAnUnknownNameThrows() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :a")
        expectError(.unknownParameter) { try statement.bind(["a": 1, "b": 2]) }
    }

    @Test(arguments: [0, -1, 3, Int.max, Int.min])
    func anIndexOutsideTheParametersThrows(index: Int) throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ?, ?")
        let error = expectError(.unknownParameter) { try statement.bind(value: 1, at: index) }
        #expect(error.text.contains("\(index)"))
        #expect(error.text.contains("SELECT ?, ?"))
    }

    @Test func anArrayLongerThanTheParametersThrows() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT ?")
        expectError(.unknownParameter) { try statement.bind([1, 2]) }
    }

    // MARK: Lifetime of bindings

    @Test func bindingsPersistUntilReboundOrCleared() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (a, b)")
        let insert = try db.prepare(query: "INSERT INTO t VALUES (:a, :b)")
        try insert.bind(value: 1, for: "a")
        try insert.bind(value: "kept", for: "b")
        try insert.perform()
        try insert.bind(value: 2, for: "a")
        try insert.perform()
        insert.clearBindings()
        try insert.bind(value: 3, for: "a")
        try insert.perform()
        let select = try db.prepare(query: "SELECT a, b FROM t ORDER BY a")
        var rows: [String] = []
        while let row = try select.next() {
            let a: Int = try row.a
            let b: String? = try row.b
            rows.append("\(a):\(b ?? "NULL")")
        }
        #expect(rows == ["1:kept", "2:kept", "3:NULL"])
    }

    @Test func bindingMidIterationRestartsTheStatement() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3)")
        let select = try db.prepare(query: "SELECT v FROM t WHERE v >= :min ORDER BY v")
        try select.bind(value: 1, for: "min")
        let first = try #require(try select.next())
        #expect(try first.v == 1)
        try select.bind(value: 2, for: "min")
        // The row of the previous run is gone.
        expectError(.staleRow) { let _: Int = try first.v }
        #expect(try select.next()?.v == 2)
        #expect(try select.next()?.v == 3)
        #expect(try select.next() == nil)
    }

    // MARK: Stored forms

    @Test func nilBindsNull() throws {
        let db = try makeDatabase()
        let result = try stored(nil as Int?, in: db)
        #expect(result.type == "null")
        #expect(result.value == .null)
    }

    @Test func emptyStringAndEmptyDataAreNotNull() throws {
        let db = try makeDatabase()
        let text = try stored("", in: db)
        #expect(text.type == "text")
        #expect(text.value == .text(""))
        #expect(try roundTrip("", in: db) == "")
        let blob = try stored(Data(), in: db)
        #expect(blob.type == "blob")
        #expect(blob.value == .blob(Data()))
        #expect(try roundTrip(Data(), in: db) == Data())
        let bytes = try stored([UInt8](), in: db)
        #expect(bytes.type == "blob")
        #expect(try roundTrip([UInt8](), in: db) == [])
        let optional: String? = try roundTrip("" as String?, in: db)
        #expect(optional == "")
    }

    @Test func emptyValuesSurviveATable() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (s TEXT, d BLOB)")
        let insert = try db.prepare(query: "INSERT INTO t VALUES (:s, :d)")
        try insert.bind(value: "", for: "s")
        try insert.bind(value: Data(), for: "d")
        try insert.perform()
        let row = try #require(
            try db.prepare(query: "SELECT s, d, s IS NULL AS sNull, d IS NULL AS dNull, length(d) AS n FROM t").next())
        #expect(try row.s == "")
        #expect(try row.d == Data())
        #expect(try row.sNull == false)
        #expect(try row.dNull == false)
        #expect(try row.n == 0)
    }

    @Test func textWithNULAndNonASCIIRoundTrips() throws {
        let db = try makeDatabase()
        for text in ["a\u{0}b", "héllo wörld", "日本語", "emoji 👩‍👩‍👧", String(repeating: "x", count: 100_000)] {
            #expect(try roundTrip(text, in: db) == text)
        }
    }

    @Test func aDatabaseValueBindsAsItIs() throws {
        let db = try makeDatabase()
        let values: [DatabaseValue] = [.null, .integer(-3), .real(2.5), .text("t"), .blob(Data([0, 1, 255]))]
        for value in values {
            #expect(try roundTrip(value, in: db) == value)
        }
        #expect(try stored(DatabaseValue.real(1), in: db).type == "real")
    }

    @Test(arguments: [UInt64(Int64.max) + 1, UInt64.max])
    func anUnsignedValueAboveInt64MaxThrowsWhenBound(value: UInt64) throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :v")
        let error = expectError(.valueOutOfRange) { try statement.bind(value: value, for: "v") }
        #expect(error.text.contains("UInt64"))
        #expect(error.text.contains("SELECT :v"))
        expectError(.valueOutOfRange) { try statement.bind(value: UInt(value), at: 1) }
        expectError(.valueOutOfRange) { try statement.bind(value: UInt64?.some(value), at: 1) }
    }

    @Test func notANumberThrowsWhenBound() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :v")
        // SQLite would store NaN as NULL: a lossy conversion, so it throws.
        let error = expectError(.invalidValue) { try statement.bind(value: Double.nan, for: "v") }
        #expect(error.text.contains("NaN"))
        expectError(.invalidValue) { try statement.bind(value: Float.nan, at: 1) }
    }
}
