import Foundation
import Strata
import Testing

@Suite struct IterationTests {
    /// A table of 1...5 and a query that fails with "integer overflow" when it reaches 4.
    private func makeFailing() throws -> (Database, Statement) {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2), (3), (4), (5)")
        let statement = try db.prepare(
            query: "SELECT CASE WHEN v = 4 THEN abs(-9223372036854775808) ELSE v END AS v FROM t ORDER BY rowid")
        return (db, statement)
    }

    @Test func forInVisitsEveryRow() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES ('a'), ('b'), ('c')")
        let statement = try db.prepare(query: "SELECT v FROM t ORDER BY v")
        var values: [String] = []
        for row in statement {
            values.append(try row.v)
        }
        #expect(values == ["a", "b", "c"])
        #expect(statement.iterationError == nil)
    }

    @Test func forInStartsOverEachTime() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1 AS v UNION ALL SELECT 2 UNION ALL SELECT 3")
        _ = try statement.next()
        _ = try statement.next()
        // A loop rewinds a statement that was partly read.
        #expect(try statement.map { try $0.v as Int } == [1, 2, 3])
        #expect(try statement.map { try $0.v as Int } == [1, 2, 3])
    }

    @Test func forInKeepsBindings() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :v AS v UNION ALL SELECT :v * 2")
        try statement.bind(value: 21, for: "v")
        #expect(try statement.map { try $0.v as Int } == [21, 42])
    }

    @Test func anErrorDuringForInIsKeptInIterationError() throws {
        let (_, statement) = try makeFailing()
        var values: [Int] = []
        for row in statement {
            values.append(try row.v)
        }
        #expect(values == [1, 2, 3])
        let error = try #require(statement.iterationError as? DatabaseError)
        #expect(error.code == .sqlite)
        #expect(error.message.contains("integer overflow"))
        #expect(String(describing: error).contains("abs(-9223372036854775808)"))
    }

    @Test func aSuccessfulLoopClearsAnEarlierIterationError() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT abs(:v) AS v")
        try statement.bind(value: Int64.min, for: "v")
        #expect(statement.map { _ in 0 }.isEmpty)
        #expect(statement.iterationError != nil)
        try statement.bind(value: -3, for: "v")
        #expect(try statement.map { try $0.v as Int } == [3])
        #expect(statement.iterationError == nil)
    }

    @Test func theThrowingCursorNeverLosesAnError() throws {
        let (_, statement) = try makeFailing()
        var values: [Int] = []
        let error = expectError(.sqlite) {
            while let row = try statement.next() {
                values.append(try row.v)
            }
        }
        #expect(values == [1, 2, 3])
        #expect(error.text.contains("integer overflow"))
    }

    @Test func theCursorStaysDoneUntilReset() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1 AS v")
        #expect(try statement.next()?.v == 1)
        #expect(try statement.next() == nil)
        // Past the end it stays at the end instead of starting over.
        #expect(try statement.next() == nil)
        #expect(try statement.next() == nil)
        statement.reset()
        #expect(try statement.next()?.v == 1)
    }

    @Test func aLoopOverAClosedDatabaseEndsWithAnError() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 1")
        db.close()
        var count = 0
        for _ in statement { count += 1 }
        #expect(count == 0)
        let error = try #require(statement.iterationError as? DatabaseError)
        #expect(error.code == .connectionClosed)
    }

    @Test func anEmptyResultIteratesNothing() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v)")
        let statement = try db.prepare(query: "SELECT v FROM t")
        var count = 0
        for _ in statement { count += 1 }
        #expect(count == 0)
        #expect(statement.iterationError == nil)
        #expect(try statement.next() == nil)
    }

    @Test func sequenceAlgorithmsWork() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3), (4)")
        let statement = try db.prepare(query: "SELECT v FROM t ORDER BY v")
        let evens = try statement.filter { try $0.v % 2 == 0 }.count
        #expect(evens == 2)
        let firstBig = try statement.first { try $0.v > 2 }
        #expect(firstBig != nil)
        let sum = try statement.reduce(0) { try $0 + ($1.v as Int) }
        #expect(sum == 10)
    }

    @Test func manyRowsIterateInOrder() throws {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE n (v INTEGER);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000)
                INSERT INTO n SELECT x FROM c;
                """)
        let statement = try db.prepare(query: "SELECT v FROM n ORDER BY v")
        var expected = 1
        var mismatches = 0
        while let row = try statement.next() {
            if try row.v != expected { mismatches += 1 }
            expected += 1
        }
        #expect(mismatches == 0)
        #expect(expected == 10_001)
    }
}
