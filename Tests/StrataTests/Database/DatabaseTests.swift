import Foundation
import Strata
import Testing

@Suite struct DatabaseTests {
    // MARK: Opening

    @Test func designTour() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE foo (name TEXT, age INTEGER)")
        let insert = try db.prepare(query: "INSERT INTO foo (name, age) VALUES (:name, :age)")
        try insert.bind(value: "Bar", for: "name")
        try insert.bind(value: 42, for: "age")
        try insert.perform()
        insert.reset()
        try insert.bind(value: 43, at: 2)
        try insert.perform()

        let select = try db.prepare(query: "SELECT name, age FROM foo ORDER BY age")
        guard case .row(let row) = try select.step() else {
            Issue.record("expected a row")
            return
        }
        let name: String = try row["name"]
        let age: Int = try row.age
        let maybe: Int? = try row["age"]
        let first: String = try row[0]
        #expect(name == "Bar")
        #expect(age == 42)
        #expect(maybe == 42)
        #expect(first == "Bar")
        var ages: [Int] = []
        for row in select { ages.append(try row.age) }
        #expect(ages == [42, 43])
        #expect(select.iterationError == nil)
    }

    @Test func openingAMissingFileCreatesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        #expect(!FileManager.default.fileExists(atPath: path))
        let db = try Database(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(db.path == path)
        #expect(!db.isReadOnly)
        #expect(!db.isClosed)
    }

    @Test func aFileDatabaseUsesTheWALJournalByDefault() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("wal.sqlite"))
        #expect(try db.journalMode == .wal)
    }

    @Test func dataPersistsAcrossConnections() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("persist.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute(query: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('kept')")
            db.close()
        }
        let db = try Database(path: path)
        let statement = try db.prepare(query: "SELECT v FROM t")
        let row = try #require(try statement.next())
        #expect(try row.v == "kept")
    }

    @Test func inMemoryDatabasesArePrivate() throws {
        let first = try Database()
        let second = try Database()
        try first.execute(query: "CREATE TABLE t (v)")
        #expect(first.path == ":memory:")
        #expect(try first.journalMode == .memory)
        let error = expectError(.sqlite) { try second.execute(query: "SELECT * FROM t") }
        #expect(error.text.contains("no such table: t"))
    }

    // MARK: Read-only

    /// Makes a file database in `journal` mode holding one row, closed again.
    private func makeFile(in directory: TemporaryDirectory, journal: JournalMode) throws -> String {
        let path = directory.path("ro.sqlite")
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (7)")
        try db.setJournalMode(journal)
        db.close()
        return path
    }

    @Test func readOnlyReadsButDoesNotWrite() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(in: directory, journal: .delete)
        let db = try Database(path: path, readOnly: true)
        #expect(db.isReadOnly)
        let row = try #require(try db.prepare(query: "SELECT v FROM t").next())
        #expect(try row.v == 7)
        let error = expectError(.readOnly) { try db.execute(query: "INSERT INTO t VALUES (8)") }
        #expect(error?.resultCode?.primary == .readOnly)
        #expect(error.text.contains("INSERT INTO t VALUES (8)"))
    }

    @Test func readOnlyNeverChangesTheJournalModeOrTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(in: directory, journal: .delete)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let db = try Database(path: path, readOnly: true)
            #expect(try db.journalMode == .delete)
            let row = try #require(try db.prepare(query: "SELECT count(*) AS n FROM t").next())
            #expect(try row.n == 1)
            db.close()
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before == after)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func readOnlyOpensAWALDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(in: directory, journal: .wal)
        let db = try Database(path: path, readOnly: true)
        #expect(try db.journalMode == .wal)
        let row = try #require(try db.prepare(query: "SELECT v FROM t").next())
        #expect(try row.v == 7)
    }

    @Test func openingAMissingFileReadOnlyThrowsAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.sqlite")
        let error = expectError(.sqlite) { _ = try Database(path: path, readOnly: true) }
        #expect(error?.resultCode == .cantOpen)
        #expect(error.text.contains(path))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func openingANonDatabaseFileThrowsAndLeavesItAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        let content = Data(String(repeating: "This is not a SQLite database. ", count: 100).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            let error = expectError(.sqlite) { _ = try Database(path: path, readOnly: readOnly) }
            #expect(error?.resultCode == .notADatabase)
            #expect(error.text.contains("SQLITE_NOTADB"))
            #expect(error.text.contains(path))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test func openingADirectoryThrows() throws {
        let directory = try TemporaryDirectory()
        let error = expectError(.sqlite) { _ = try Database(path: directory.url.path) }
        #expect(error?.resultCode?.primary == .cantOpen)
    }

    // MARK: Closing

    @Test func closeIsIdempotent() throws {
        let db = try makeDatabase()
        db.close()
        #expect(db.isClosed)
        db.close()
        #expect(db.isClosed)
    }

    @Test func releasingADatabaseClosesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("released.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1)")
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        // The last connection to a WAL database checkpoints and removes the WAL file when it closes.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let db = try Database(path: path, readOnly: true)
        #expect(try db.prepare(query: "SELECT v FROM t").next()?.v == 1)
    }

    @Test func executeAfterCloseThrows() throws {
        let db = try makeDatabase()
        db.close()
        let error = expectError(.connectionClosed) { try db.execute(query: "SELECT 1") }
        #expect(error.text.contains("SELECT 1"))
        expectError(.connectionClosed) { _ = try db.prepare(query: "SELECT 1") }
        expectError(.connectionClosed) { _ = try db.userVersion }
        expectError(.connectionClosed) { _ = try db.lastInsertedId }
        expectError(.connectionClosed) { _ = try db.changes }
        expectError(.connectionClosed) { _ = try db.totalChanges }
        #expect(!db.isInTransaction)
    }

    @Test func closeWithLiveStatementsIsSafe() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (2)")
        let stepped = try db.prepare(query: "SELECT v FROM t")
        let row = try #require(try stepped.next())
        let idle = try db.prepare(query: "INSERT INTO t VALUES (:v)")
        try idle.bind(value: 3, for: "v")
        db.close()
        expectError(.connectionClosed) { _ = try stepped.next() }
        expectError(.connectionClosed) { let _: Int = try row.v }
        expectError(.connectionClosed) { try idle.perform() }
        // Releasing the statements after close must not finalize them twice.
        _ = consume row
        _ = consume stepped
        _ = consume idle
        #expect(db.isClosed)
    }

    // MARK: Executing

    @Test func executeRunsManyStatements() throws {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                -- a comment between statements
                INSERT INTO author (name) VALUES ('Ann');
                INSERT INTO author (name) VALUES ('Bob');
                SELECT * FROM author;
                """)
        let row = try #require(try db.prepare(query: "SELECT count(*) AS n, max(name) AS last FROM author").next())
        #expect(try row.n == 2)
        #expect(try row.last == "Bob")
    }

    @Test(arguments: ["", "   ", "-- only a comment", ";", "/* block */ ;"])
    func executeOfNothingDoesNothing(query: String) throws {
        let db = try makeDatabase()
        try db.execute(query: query)
        #expect(try db.totalChanges == 0)
    }

    @Test func executeStopsAtTheFailingStatementAndNamesIt() throws {
        let db = try makeDatabase()
        let error = expectError(.sqlite) {
            try db.execute(query: "CREATE TABLE t (v); INSERT INTO missing VALUES (1); INSERT INTO t VALUES (2)")
        }
        #expect(error?.resultCode == .error)
        #expect(error.text.contains("no such table: missing"))
        #expect(error.text.contains("INSERT INTO missing VALUES (1)"))
        #expect(!error.text.contains("INSERT INTO t VALUES (2)"))
        // The statement before the failure stays applied, the one after never ran.
        let row = try #require(try db.prepare(query: "SELECT count(*) AS n FROM t").next())
        #expect(try row.n == 0)
    }

    @Test func malformedSQLThrowsFromExecuteAndPrepare() throws {
        let db = try makeDatabase()
        let executeError = expectError(.sqlite) { try db.execute(query: "SELEC 1 FROM nowhere") }
        #expect(executeError?.resultCode == .error)
        #expect(executeError.text.contains("syntax error"))
        #expect(executeError.text.contains("SELEC 1 FROM nowhere"))
        let prepareError = expectError(.sqlite) { _ = try db.prepare(query: "SELECT FROM WHERE") }
        #expect(prepareError.text.contains("SELECT FROM WHERE"))
        #expect(prepareError.text.hasPrefix("SQLite error 1 (SQLITE_ERROR)"))
    }

    @Test func runtimeErrorInExecuteNamesTheStatement() throws {
        let db = try makeDatabase()
        let error = expectError(.sqlite) { try db.execute(query: "SELECT abs(-9223372036854775808)") }
        #expect(error.text.contains("integer overflow"))
        #expect(error.text.contains("SELECT abs(-9223372036854775808)"))
    }

    /// SQLite's legacy rule reads an unknown double-quoted name as a string literal, so a typo in
    /// a column name silently matches nothing; Strata turns it off for queries. Schema statements
    /// keep it, so existing schemas that rely on it still open.
    @Test func aDoubleQuotedNameIsAlwaysAnIdentifierInQueries() throws {
        let db = try makeDatabase()
        try db.execute(query: #"CREATE TABLE t (name TEXT DEFAULT "legacy default")"#)
        try db.execute(query: "INSERT INTO t DEFAULT VALUES")
        let error = expectError(.sqlite) {
            _ = try db.fetchAll(String.self, query: #"SELECT name FROM t WHERE "nmae" = 'x'"#)
        }
        #expect(error?.message == "no such column: nmae")
        #expect(
            try db.fetchAll(String.self, query: #"SELECT "name" FROM t WHERE "name" = 'legacy default'"#) == [
                "legacy default"
            ])
    }

    // MARK: Properties

    @Test func lastInsertedIdAndChanges() throws {
        let db = try makeDatabase()
        #expect(try db.lastInsertedId == 0)
        try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        try db.execute(query: "INSERT INTO t (id, v) VALUES (41, 'a')")
        #expect(try db.lastInsertedId == 41)
        try db.execute(query: "INSERT INTO t (v) VALUES ('b')")
        #expect(try db.lastInsertedId == 42)
        #expect(try db.changes == 1)
        try db.execute(query: "INSERT INTO t (v) VALUES ('c'), ('d'), ('e')")
        #expect(try db.changes == 3)
        try db.execute(query: "UPDATE t SET v = 'x' WHERE id > 41")
        #expect(try db.changes == 4)
        #expect(try db.totalChanges == 9)
    }

    @Test func sqliteVersionIsTheLibraryInUse() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT sqlite_version() AS v").next())
        #expect(db.sqliteVersion == (try row.v))
        #expect(db.sqliteVersion.hasPrefix("3."))
    }

    @Test func statementsTakeTheDatabaseStrategies() throws {
        let db = try makeDatabase()
        #expect(db.dateStrategy == .text)
        #expect(db.arrayStrategy == .json)
        #expect(db.uuidStrategy == .blob)
        db.dateStrategy = .integer
        db.uuidStrategy = .text
        db.arrayStrategy = .bplist
        let statement = try db.prepare(query: "SELECT 1")
        #expect(statement.dateStrategy == .integer)
        #expect(statement.uuidStrategy == .text)
        #expect(statement.arrayStrategy == .bplist)
        let stored = try stored(Date(timeIntervalSince1970: 60), in: db)
        #expect(stored.type == "integer")
        #expect(stored.value == .integer(60))
    }
}

@Suite("Database lifetime")
struct DatabaseLifetimeTests {
    @Test func releasingADatabaseWithCachedStatementsClosesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cached.sqlite")
        weak var released: Database?
        do {
            let db = try Database(path: path)
            try db.execute(query: "CREATE TABLE t (x INTEGER)")
            try db.execute(query: "INSERT INTO t VALUES (:x)", parameters: ["x": 1])
            #expect(try db.fetchOne(Int.self, query: "SELECT x FROM t") == 1)
            released = db
        }
        // The cached statements must not keep the database (and its connection) alive.
        #expect(released == nil)
        // The last connection to close checkpoints and removes the WAL file.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aStatementOutlivingItsDatabaseKeepsWorkingUntilExplicitClose() throws {
        var statement: Statement?
        var database: Database?
        do {
            let db = try Database()
            statement = try db.prepare(query: "SELECT 1")
            database = db
        }
        #expect(try statement?.next().map { try $0[0] as Int } == 1)
        database?.close()
        let error = try #require(throws: DatabaseError.self) { try statement?.step() }
        #expect(error.code == .connectionClosed)
    }
}
