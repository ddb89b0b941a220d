import Foundation
import Strata
import Testing

@Suite struct RowTests {
    private func firstRow(_ query: String, in db: Database) throws -> Row {
        try #require(try db.prepare(query: query).next())
    }

    @Test func typedSubscriptsByNameIndexAndMember() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 'Bar' AS name, 42 AS age, 1.5 AS score, x'0102' AS data", in: db)
        let byName: String = try row["name"]
        let byIndex: Int = try row[1]
        let byMember: Double = try row.score
        let data: Data = try row.data
        #expect(byName == "Bar")
        #expect(byIndex == 42)
        #expect(byMember == 1.5)
        #expect(data == Data([1, 2]))
    }

    @Test func columnNamesAndCount() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 1 AS a, 2 AS b, 3", in: db)
        #expect(row.columnCount == 3)
        #expect(row.columnNames == ["a", "b", "3"])
        #expect(row.hasColumn("a"))
        #expect(row.hasColumn("B"))
        #expect(!row.hasColumn("c"))
    }

    @Test func aRowDecodesAsItsDecoderDecodesIt() throws {
        let db = try makeDatabase()
        struct Pair: Decodable, Equatable {
            var a: Int
            var bValue: String
        }
        let statement = try db.prepare(query: "SELECT 1 AS a, 'x' AS b_value")
        let row = try #require(try statement.next())
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try row.decode(Pair.self, decoder: decoder) == Pair(a: 1, bValue: "x"))
        #expect(try decoder.decode(Pair.self, from: row) == Pair(a: 1, bValue: "x"))
        #expect(throws: DecodingError.self) { try row.decode(Pair.self) }
    }

    @Test func aCursorIsReadWithForTryAwaitToo() async throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2), (3)")
        var values: [Int] = []
        for try await value in try db.fetchCursor(Int.self, query: "SELECT v FROM n ORDER BY v") {
            values.append(value)
        }
        #expect(values == [1, 2, 3])
        let failing = try db.fetchCursor(Int.self, query: "SELECT 'x' UNION ALL SELECT 'not a number'")
        await #expect(throws: (any Error).self) {
            for try await _ in failing {}
        }
    }

    @Test func namesMatchCaseInsensitivelyAfterAnExactMatch() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 1 AS Name, 2 AS name, 3 AS Other", in: db)
        #expect(try row["name"] == 2)
        #expect(try row["Name"] == 1)
        #expect(try row["NAME"] == 1)
        #expect(try row.other == 3)
    }

    @Test func theFirstOfTwoColumnsWithOneNameWins() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 1 AS v, 2 AS v", in: db)
        #expect(try row.v == 1)
        #expect(try row[1] == 2)
    }

    @Test func optionalReadsGiveNilForNull() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT NULL AS a, 5 AS b", in: db)
        let a: Int? = try row.a
        let b: Int? = try row.b
        let text: String? = try row["a"]
        let date: Date? = try row[0]
        #expect(a == nil)
        #expect(b == 5)
        #expect(text == nil)
        #expect(date == nil)
    }

    @Test func databaseValueAccess() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT NULL, 1, 2.5, 'x', x'ff'", in: db)
        let values: [DatabaseValue] = try (0..<row.columnCount).map { try row[$0] }
        #expect(values == [.null, .integer(1), .real(2.5), .text("x"), .blob(Data([255]))])
        #expect(values.map(\.storageClassName) == ["NULL", "INTEGER", "REAL", "TEXT", "BLOB"])
        #expect(values[0].isNull)
        #expect(!values[1].isNull)
    }

    @Test func databaseValueDescriptionsAndLiterals() {
        let values: [DatabaseValue] = [nil, 42, 1.5, "it's", true, .blob(Data([0, 171]))]
        #expect(values.map(\.description) == ["NULL", "42", "1.5", "'it''s'", "1", "x'00ab'"])
    }

    // MARK: Unknown columns

    @Test func anUnknownColumnNameThrows() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 1 AS a, 2 AS b", in: db)
        let error = expectError(.unknownColumn) { let _: Int = try row["missing"] }
        #expect(error.text.contains("\"missing\""))
        #expect(error.text.contains("\"a\", \"b\""))
        #expect(error.text.contains("SELECT 1 AS a, 2 AS b"))
        expectError(.unknownColumn) { let _: Int? = try row.missing }
    }

    @Test(arguments: [-1, 2, 100, Int.max, Int.min])
    func anUnknownColumnIndexThrows(index: Int) throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT 1 AS a, 2 AS b", in: db)
        let error = expectError(.unknownColumn) { let _: Int = try row[index] }
        #expect(error.text.contains("index \(index)"))
        #expect(error.text.contains("SELECT 1 AS a, 2 AS b"))
        expectError(.unknownColumn) { let _: DatabaseValue = try row[index] }
    }

    @Test func aStatementWithoutColumnsHasNoRow() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v)")
        let insert = try db.prepare(query: "INSERT INTO t VALUES (1)")
        #expect(insert.columnCount == 0)
        #expect(try insert.next() == nil)
    }

    // MARK: Strict reads

    @Test func nullIntoANonOptionalThrows() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT NULL AS v", in: db)
        let error = expectError(.unexpectedNull) { let _: Int = try row.v }
        #expect(error?.column == "v")
        expectError(.unexpectedNull) { let _: String = try row.v }
        expectError(.unexpectedNull) { let _: Data = try row.v }
        expectError(.unexpectedNull) { let _: Bool = try row.v }
        expectError(.unexpectedNull) { let _: Double = try row.v }
        expectError(.unexpectedNull) { let _: Date = try row.v }
        expectError(.unexpectedNull) { let _: UUID = try row.v }
    }

    @Test func textReadAsANumberThrows() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT '42' AS v", in: db)
        let error = expectError(.typeMismatch) { let _: Int = try row.v }
        #expect(error.text.contains("could not decode Int from TEXT"))
        #expect(error.text.contains("column \"v\""))
        expectError(.typeMismatch) { let _: Double = try row.v }
        expectError(.typeMismatch) { let _: Bool = try row.v }
        expectError(.typeMismatch) { let _: Int? = try row.v }
    }

    @Test func invalidUTF8TextThrowsAsStringAndReadsAsData() throws {
        let db = try makeDatabase()
        let row = try firstRow("SELECT CAST(x'41C328FF' AS TEXT) AS v, typeof(CAST(x'41C328FF' AS TEXT)) AS t", in: db)
        #expect(try row.t == "text")
        let error = expectError(.invalidValue) { let _: String = try row.v }
        #expect(error.text.contains("UTF-8"))
        #expect(error.text.contains("column \"v\""))
        expectError(.invalidValue) { let _: String? = try row.v }
        expectError(.invalidValue) { let _: DatabaseValue = try row.v }
        // The message promises the bytes as Data.
        let bytes: Data = try row.v
        #expect(bytes == Data([0x41, 0xC3, 0x28, 0xFF]))
    }

    // MARK: Stale rows

    @Test func aRowIsStaleOnceItsStatementSteps() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1 AS v UNION ALL SELECT 2")
        let first = try #require(try statement.next())
        #expect(try first.v == 1)
        let second = try #require(try statement.next())
        let error = expectError(.staleRow) { let _: Int = try first.v }
        #expect(error.text.contains("SELECT 1 AS v UNION ALL SELECT 2"))
        #expect(try second.v == 2)
        #expect(try statement.next() == nil)
        expectError(.staleRow) { let _: Int = try second.v }
    }

    @Test func aRowIsStaleAfterResetAndPerform() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1 AS v")
        let row = try #require(try statement.next())
        statement.reset()
        expectError(.staleRow) { let _: Int = try row.v }
        let again = try #require(try statement.next())
        try statement.perform()
        expectError(.staleRow) { let _: DatabaseValue = try again[0] }
    }

    @Test func rowsCollectedFromASequenceAreStale() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1 AS v UNION ALL SELECT 2")
        let rows = Array(statement)
        #expect(rows.count == 2)
        for row in rows {
            expectError(.staleRow) { let _: Int = try row.v }
        }
        // Reading inside the loop is the way.
        #expect(try statement.map { try $0.v as Int } == [1, 2])
    }
}
