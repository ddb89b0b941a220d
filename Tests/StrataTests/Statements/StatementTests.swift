import Foundation
import Strata
import Testing

@Suite struct StatementTests {
    private func makePeople() throws -> Database {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER);
                INSERT INTO person (name, age) VALUES ('Ann', 31), ('Bob', 42), ('Cid', NULL);
                """)
        return db
    }

    @Test func aStatementDescribesItself() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :a AS first, @b AS second, $c, ? AS fourth")
        #expect(statement.sql == "SELECT :a AS first, @b AS second, $c, ? AS fourth")
        #expect(statement.columnCount == 4)
        #expect(statement.columnNames == ["first", "second", "$c", "fourth"])
        #expect(statement.parameterCount == 4)
        #expect(statement.parameterNames == ["a", "b", "c"])
    }

    @Test func performRunsToCompletionAndCanRunAgain() throws {
        let db = try makePeople()
        let insert = try db.prepare(query: "INSERT INTO person (name, age) VALUES (:name, :age)")
        try insert.bind(value: "Dee", for: "name")
        try insert.bind(value: 20, for: "age")
        try insert.perform()
        #expect(try db.lastInsertedId == 4)
        try insert.bind(value: "Eve", for: "name")
        try insert.perform()
        #expect(try db.lastInsertedId == 5)
        let row = try #require(try db.prepare(query: "SELECT name, age FROM person WHERE id = 5").next())
        #expect(try row.name == "Eve")
        #expect(try row.age == 20)
    }

    @Test func performOfASelectDiscardsItsRows() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT * FROM person")
        try select.perform()
        try select.perform()
        // perform() leaves the statement reset: the next step starts at the first row.
        let row = try #require(try select.next())
        #expect(try row.name == "Ann")
    }

    @Test func stepGivesRowsThenDone() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT name FROM person ORDER BY id")
        var names: [String] = []
        while case .row(let row) = try select.step() {
            names.append(try row.name)
        }
        #expect(names == ["Ann", "Bob", "Cid"])
    }

    @Test func stepOfAnInsertIsDone() throws {
        let db = try makePeople()
        let insert = try db.prepare(query: "INSERT INTO person (name) VALUES ('Fay')")
        guard case .done = try insert.step() else {
            Issue.record("an INSERT has no row")
            return
        }
        #expect(try db.changes == 1)
    }

    @Test func resetRewindsAndKeepsBindings() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT name FROM person WHERE age > :min ORDER BY id")
        try select.bind(value: 30, for: "min")
        let first = try #require(try select.next())
        #expect(try first.name == "Ann")
        select.reset()
        let again = try #require(try select.next())
        #expect(try again.name == "Ann")
        let second = try #require(try select.next())
        #expect(try second.name == "Bob")
        #expect(try select.next() == nil)
    }

    @Test func clearBindingsSetsParametersToNull() throws {
        let db = try makeDatabase()
        let select = try db.prepare(query: "SELECT :a AS a, ? AS b")
        try select.bind(value: 1, for: "a")
        try select.bind(value: "x", at: 2)
        let bound = try #require(try select.next())
        #expect(try bound.a == 1)
        #expect(try bound.b == "x")
        select.reset()
        select.clearBindings()
        let cleared = try #require(try select.next())
        let a: Int? = try cleared.a
        let b: DatabaseValue = try cleared.b
        #expect(a == nil)
        #expect(b == .null)
    }

    @Test func prepareTakesOneStatement() throws {
        let db = try makeDatabase()
        let error = expectError(.invalidArgument) { _ = try db.prepare(query: "SELECT 1; SELECT 2") }
        #expect(error.text.contains("SELECT 1; SELECT 2"))
        expectError(.invalidArgument) { _ = try db.prepare(query: "SELECT 1; SELEC 2") }
        // A trailing semicolon, whitespace or comment is not a second statement.
        let statement = try db.prepare(query: "SELECT 1 AS one;  -- done\n")
        #expect(try statement.next()?.one == 1)
    }

    @Test(arguments: ["", "  ", "-- nothing", ";"])
    func prepareOfNoStatementThrows(query: String) throws {
        let db = try makeDatabase()
        expectError(.invalidArgument) { _ = try db.prepare(query: query) }
    }

    @Test func prepareOfMalformedSQLThrows() throws {
        let db = try makeDatabase()
        let syntax = expectError(.sqlite) { _ = try db.prepare(query: "SELEC name FROM person") }
        #expect(syntax?.resultCode == .error)
        #expect(syntax?.sql == "SELEC name FROM person")
        #expect(syntax.text.contains("near \"SELEC\": syntax error"))
        let table = expectError(.sqlite) { _ = try db.prepare(query: "SELECT * FROM nowhere") }
        #expect(table.text.contains("no such table: nowhere"))
        #expect(table.text.contains("SELECT * FROM nowhere"))
    }

    @Test func aRuntimeErrorThrowsFromStepAndPerform() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT abs(:v)")
        try statement.bind(value: Int64.min, for: "v")
        let stepError = expectError(.sqlite) { _ = try statement.step() }
        #expect(stepError.text.contains("integer overflow"))
        #expect(stepError?.sql == "SELECT abs(:v)")
        expectError(.sqlite) { try statement.perform() }
        // After the error the statement was reset and runs again with a new binding.
        try statement.bind(value: -5, for: "v")
        #expect(try statement.next()?[0] == 5)
    }

    // MARK: Closed connection

    @Test func aStatementUsedAfterCloseThrows() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT name FROM person WHERE age > :min")
        let insert = try db.prepare(query: "INSERT INTO person (name) VALUES (?)")
        db.close()
        let bindError = expectError(.connectionClosed) { try select.bind(value: 1, for: "min") }
        #expect(bindError.text.contains("SELECT name FROM person"))
        expectError(.connectionClosed) { try insert.bind(value: "x", at: 1) }
        expectError(.connectionClosed) { _ = try select.step() }
        expectError(.connectionClosed) { _ = try select.next() }
        expectError(.connectionClosed) { try insert.perform() }
        // reset() and clearBindings() do nothing on a closed connection, and say so by not trapping.
        select.reset()
        select.clearBindings()
        expectError(.connectionClosed) { _ = try select.next() }
    }

    @Test func aFinishedStatementUsedAfterCloseThrows() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT name FROM person")
        while try select.next() != nil {}
        #expect(try select.next() == nil)
        db.close()
        expectError(.connectionClosed) { _ = try select.next() }
    }

    @Test func aRowReadAfterCloseThrows() throws {
        let db = try makePeople()
        let select = try db.prepare(query: "SELECT name FROM person")
        let row = try #require(try select.next())
        #expect(try row.name == "Ann")
        db.close()
        let error = expectError(.connectionClosed) { let _: String = try row.name }
        #expect(error.text.contains("SELECT name FROM person"))
        expectError(.connectionClosed) { let _: String = try row[0] }
    }

    // MARK: Finalization

    @Test func aReleasedStatementIsFinalized() throws {
        let db = try makePeople()
        do {
            let pending = try db.prepare(query: "SELECT name FROM person")
            #expect(try pending.next() != nil)
            // While a statement is mid-read, its table cannot be dropped.
            let error = expectError(.busy) { try db.execute(query: "DROP TABLE person") }
            #expect(error?.resultCode?.primary == .locked)
        }
        // Released: finalized, so the table is free.
        try db.execute(query: "DROP TABLE person")
        expectError(.sqlite) { _ = try db.prepare(query: "SELECT * FROM person") }
    }

    @Test func aStatementKeepsItsDatabaseOpen() throws {
        var db: Database? = try makePeople()
        let statement = try #require(try db?.prepare(query: "SELECT count(*) AS n FROM person"))
        db = nil
        #expect(try statement.next()?.n == 3)
    }
}
