import Foundation
import InMemoryLogging
import Logging
import Metrics
import MetricsTestKit
import Testing
import Tracing

@testable import Strata

/// Which statements are reported: every statement Strata runs for the caller, whatever its SQL begins with and
/// whichever way it runs; never the statements SQLite runs on its own; and nothing kept for those.
///
/// In ``ObservabilityTests`` (serialized), since some of these read the process-wide tracer and metrics backends.
extension ObservabilityTests {
    /// A Note record, for the record path.
    struct Note: Model, Equatable {
        static let tableName = "note"
        var id: Int64?
        var title: String
    }

    /// The messages logged at `.trace`: the SQL of the statements reported, in order.
    private static func loggedSQL(_ handler: InMemoryLogHandler) -> [String] {
        handler.entries.filter { $0.level == .trace }.map { "\($0.message)" }
    }

    @Test func aStatementThatBeginsWithACommentIsLoggedTracedAndCounted() throws {
        TestBackends.reset()
        let (logger, handler) = Self.capturingLogger()
        let db = try Self.notesDatabase(DatabaseObservability(logger: logger, tracing: true, metrics: true))
        let named = "-- name: InsertNote :exec\nINSERT INTO note (title) VALUES (?)"
        let commented = "/* sqlc: ListNotes */ SELECT title FROM note ORDER BY id"
        try db.execute(query: named, parameters: "first")
        #expect(try db.fetchAll(String.self, query: commented) == ["first"])

        let entries = handler.entries.filter { $0.level == .trace }
        #expect(entries.map { "\($0.message)" } == [named, commented])
        #expect(entries.first?.metadata["db.operation.name"] == "INSERT")
        #expect(entries.first?.metadata["db.changes"] == "1")
        #expect(entries.last?.metadata["db.operation.name"] == "SELECT")
        #expect(entries.last?.metadata["db.response.returned_rows"] == "1")
        let spans = TestBackends.tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["INSERT", "SELECT"])
        #expect(spans.first?.attributes["db.query.text"]?.toSpanAttribute() == .string(named))
        let metrics = TestBackends.metrics
        #expect(
            metrics.counterTotal(label: StrataMetric.statements, dimensions: [("db.operation.name", "INSERT")]) == 1)
        #expect(
            metrics.counterTotal(label: StrataMetric.statements, dimensions: [("db.operation.name", "SELECT")]) == 1)
    }

    @Test func everyStatementOfAnExecuteIsLoggedWhateverItBeginsWith() throws {
        let (logger, handler) = Self.capturingLogger()
        let db = try Database()
        db.observability = DatabaseObservability(logger: logger)
        try db.execute(
            query: """
                -- 0001_create_note.sql: the notes
                CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                /* seed */ INSERT INTO note (title) VALUES ('a');
                -- name: CountNotes :one
                SELECT count(*) FROM note;
                """)
        let logged = Self.loggedSQL(handler).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(logged.count == 3)
        #expect(logged.first?.hasPrefix("-- 0001_create_note.sql") == true)
        #expect(logged.dropFirst().first?.hasPrefix("/* seed */ INSERT") == true)
        #expect(logged.last?.hasPrefix("-- name: CountNotes :one") == true)
        #expect(handler.entries.map { $0.metadata["db.operation.name"] } == ["CREATE", "INSERT", "SELECT"])
    }

    @Test func cachedPreparedAndRecordStatementsAreLogged() throws {
        let db = try Self.notesDatabase(DatabaseObservability())
        // Statements cached before the logger is set are the caller's too.
        var early = Note(id: nil, title: "early")
        try db.insert(&early)
        let cachedSQL = "-- name: InsertTitle :exec\nINSERT INTO note (title) VALUES (:title)"
        let cached = try db.cachedStatement(query: cachedSQL)
        let (logger, handler) = Self.capturingLogger()
        db.observability = DatabaseObservability(logger: logger)

        try cached.bind(value: "cached", for: "title")
        try cached.perform()
        let prepared = try db.prepare(query: "-- name: Titles :many\nSELECT title FROM note ORDER BY id")
        var titles: [String] = []
        while let row = try prepared.next() { titles.append(try row[0]) }
        #expect(titles == ["early", "cached"])
        var late = Note(id: nil, title: "late")
        try db.insert(&late)
        #expect(try db.find(Note.self, id: late.id ?? 0) == late)

        let logged = Self.loggedSQL(handler)
        // The record's INSERT runs in a transaction of its own (RETURNING is read to its end atomically).
        #expect(
            logged == [
                cachedSQL, "-- name: Titles :many\nSELECT title FROM note ORDER BY id", "BEGIN IMMEDIATE",
                "INSERT INTO \"note\" (\"id\", \"title\") VALUES (:id, :title) RETURNING *", "COMMIT",
                "SELECT * FROM \"note\" WHERE \"id\" = ?",
            ])
    }

    @Test func aStreamAndAMigrationFileThatBeginWithACommentAreLogged() async throws {
        let directory = try TemporaryDirectory()
        let migrations = directory.url.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        let migrationSQL = """
            -- Migration 1: the notes.
            CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            """
        try Data(migrationSQL.utf8).write(to: migrations.appendingPathComponent("0001_create_note.sql"))
        let (logger, handler) = Self.capturingLogger()
        let pool = try DatabasePool(
            path: directory.path("stream.sqlite"), readers: 1, observability: DatabaseObservability(logger: logger))
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: migrations)
        #expect(try await migrator.migrate(pool) == [1])
        try await pool.write { db in try db.execute(query: "INSERT INTO note (title) VALUES ('a'), ('b')") }
        let streamSQL = "-- name: StreamTitles :many\nSELECT title FROM note ORDER BY id"
        var streamed: [String] = []
        for try await title in pool.stream(String.self, query: streamSQL) { streamed.append(title) }
        #expect(streamed == ["a", "b"])
        await pool.close()

        let logged = Self.loggedSQL(handler)
        #expect(logged.contains { $0.hasPrefix("-- Migration 1: the notes.") && $0.contains("CREATE TABLE note") })
        let stream = try #require(handler.entries.first { "\($0.message)" == streamSQL })
        #expect(stream.metadata["db.response.returned_rows"] == "2")
    }

    @Test func sqlitesOwnStatementsAreNeitherReportedNorKept() throws {
        TestBackends.reset()
        let (logger, handler) = Self.capturingLogger()
        let db = try Database()
        db.observability = DatabaseObservability(logger: logger, tracing: true, metrics: true)
        let observer = try #require(db.connection.observer)
        // Each cycle changes the schema through cached statements (as a migration tool might), which makes SQLite
        // read the schema again on the same connection, and ANALYZE reads sqlite_stat1: statements of SQLite's own,
        // whose rows were once added to the next statement's (`SELECT 0 WHERE 0` logged with 1 row).
        let cycles = 10_000
        let perCycle = 7
        var largestKept = 0
        for index in 0..<cycles {
            let table = "t\(index)"
            try db.cachedStatement(query: "CREATE TABLE \(table) (x INTEGER)").perform()
            try db.cachedStatement(query: "CREATE INDEX \(table)_x ON \(table) (x)").perform()
            try db.execute(query: "SELECT 0 WHERE 0")
            try db.execute(query: "INSERT INTO \(table) VALUES (1), (2)")
            #expect(try db.fetchAll(Int.self, query: "SELECT x FROM \(table) ORDER BY x") == [1, 2])
            try db.execute(query: "ANALYZE")
            try db.cachedStatement(query: "DROP TABLE \(table)").perform()
            largestKept = max(largestKept, observer.registeredStatementCount)
        }
        // The statement cache keeps at most 64 statements; nothing else stays.
        #expect(largestKept <= 64)

        let logged = Self.loggedSQL(handler)
        #expect(logged.count == cycles * perCycle)
        #expect(!logged.contains { $0.contains("sqlite_stat1") || $0.contains("sqlite_master") })
        let entries = handler.entries
        let empty = entries.filter { "\($0.message)" == "SELECT 0 WHERE 0" }
        #expect(empty.count == cycles)
        #expect(empty.filter { $0.metadata["db.response.returned_rows"] != "0" }.count == 0)
        let selects = entries.filter { "\($0.message)".hasPrefix("SELECT x FROM") }
        #expect(selects.filter { $0.metadata["db.response.returned_rows"] != "2" }.count == 0)
        #expect(TestBackends.tracer.finishedSpans.count == cycles * perCycle)
        let total = ["CREATE", "INSERT", "ANALYZE", "SELECT", "DROP"].reduce(0) { total, operation in
            total
                + TestBackends.metrics.counterTotal(
                    label: StrataMetric.statements, dimensions: [("db.operation.name", operation)])
        }
        #expect(total == cycles * perCycle)
    }

    @Test func statementsThatFailToCompileShareOneMetricsDimension() throws {
        TestBackends.reset()
        let db = try Database()
        db.observability = DatabaseObservability(metrics: true)
        for index in 0..<50 {
            #expect(throws: DatabaseError.self) { try db.execute(query: "WORD\(index)X garbage") }
        }
        let failures = TestBackends.metrics.counterTotal(
            label: StrataMetric.statementFailures, dimensions: [("db.operation.name", "SQL")])
        #expect(failures == 50)
    }
}
