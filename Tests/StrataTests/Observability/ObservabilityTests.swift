import Dispatch
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import Testing
import Tracing

@testable import Strata

/// The process-wide tracer and metrics backend of these tests, bootstrapped once: swift-distributed-tracing and
/// swift-metrics take one backend per process. No other suite turns tracing or metrics on, and this suite runs its
/// tests one at a time, so what the backends hold after a test is that test's.
enum TestBackends {
    static let tracer = InMemoryTracer()
    static let metrics = TestMetrics()
    private static let bootstrapped: Bool = {
        InstrumentationSystem.bootstrap(tracer)
        MetricsSystem.bootstrap(metrics)
        return true
    }()

    /// Bootstraps once and forgets what earlier tests recorded.
    static func reset() {
        _ = bootstrapped
        tracer.clearAll(includingActive: true)
        metrics.reset()
    }
}

@Suite(.serialized)
struct ObservabilityTests {
    /// A logger at `level` whose entries the test reads.
    static func capturingLogger(_ level: Logger.Level = .trace) -> (Logger, InMemoryLogHandler) {
        var handler = InMemoryLogHandler()
        handler.logLevel = level
        let captured = handler
        return (Logger(label: "strata.tests", factory: { _ in captured }), handler)
    }

    static func notesDatabase(_ observability: DatabaseObservability) throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE)")
        db.observability = observability
        return db
    }

    // MARK: Logging

    @Test func eachStatementIsLoggedAtTraceWithItsSQLDurationAndRows() throws {
        let (logger, handler) = Self.capturingLogger()
        let db = try Self.notesDatabase(DatabaseObservability(logger: logger))
        try db.execute(query: "INSERT INTO note (title) VALUES (?)", parameters: "first")
        try db.execute(query: "INSERT INTO note (title) VALUES ('second'), ('third')")
        let titles = try db.fetchAll(String.self, query: "SELECT title FROM note ORDER BY id")
        #expect(titles == ["first", "second", "third"])

        let entries = handler.entries
        #expect(entries.allSatisfy { $0.level == .trace })
        let insert = try #require(entries.first { "\($0.message)" == "INSERT INTO note (title) VALUES (?)" })
        #expect(insert.metadata["db.operation.name"] == "INSERT")
        #expect(insert.metadata["db.changes"] == "1")
        #expect(insert.metadata["db.response.returned_rows"] == "0")
        #expect(Double("\(insert.metadata["db.duration_ms"] ?? "")") != nil)
        let multi = try #require(
            entries.first { "\($0.message)".hasPrefix("INSERT INTO note (title) VALUES ('second')") })
        #expect(multi.metadata["db.changes"] == "2")
        let select = try #require(entries.first { "\($0.message)" == "SELECT title FROM note ORDER BY id" })
        #expect(select.metadata["db.operation.name"] == "SELECT")
        #expect(select.metadata["db.response.returned_rows"] == "3")
        #expect(select.metadata["db.changes"] == nil)
    }

    @Test func boundValuesAreLoggedOnlyWhenAskedFor() throws {
        let (logger, handler) = Self.capturingLogger()
        let db = try Self.notesDatabase(DatabaseObservability(logger: logger))
        try db.execute(query: "INSERT INTO note (title) VALUES (:title)", parameters: ["title": "s3cret-token"])
        #expect(!handler.entries.isEmpty)
        #expect(!handler.entries.contains { "\($0.message)\($0.metadata)".contains("s3cret-token") })

        let (revealing, revealed) = Self.capturingLogger()
        db.observability = DatabaseObservability(logger: revealing, logsBoundValues: true)
        try db.execute(query: "INSERT INTO note (title) VALUES (:title)", parameters: ["title": "visible-value"])
        #expect(revealed.entries.contains { "\($0.message)" == "INSERT INTO note (title) VALUES ('visible-value')" })
    }

    @Test func aStatementSlowerThanTheThresholdIsAWarning() throws {
        let (logger, handler) = Self.capturingLogger(.info)
        let db = try Self.notesDatabase(
            DatabaseObservability(logger: logger, slowStatementThreshold: .milliseconds(20)))
        try db.execute(query: "INSERT INTO note (title) VALUES ('quick')")
        // A recursive count that takes well over 20 ms.
        let slow = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) FROM n
            """
        #expect(try db.fetchOne(Int.self, query: slow) == 3_000_000)
        // The quick insert is not logged at .info; the slow query is a warning.
        #expect(handler.entries.count == 1)
        let warning = try #require(handler.entries.first)
        #expect(warning.level == .warning)
        #expect("\(warning.message)" == "slow statement: " + slow)
        #expect(warning.metadata["db.slow_threshold_ms"] == "20.000")
        let milliseconds = try #require(Double("\(warning.metadata["db.duration_ms"] ?? "")"))
        #expect(milliseconds >= 20)
    }

    @Test func failuresAreLoggedAtDebugWithTheError() throws {
        let (logger, handler) = Self.capturingLogger(.debug)
        let db = try Self.notesDatabase(DatabaseObservability(logger: logger))
        try db.execute(query: "INSERT INTO note (title) VALUES ('same')")
        #expect(throws: DatabaseError.self) { try db.execute(query: "INSERT INTO note (title) VALUES ('same')") }
        #expect(throws: DatabaseError.self) { try db.execute(query: "SELEKT 1") }
        let insert = try db.prepare(query: "INSERT INTO note (title) VALUES (?)")
        try insert.bind(value: "same", at: 1)
        #expect(throws: DatabaseError.self) { try insert.perform() }

        let failures = handler.entries
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0.level == .debug })
        #expect(
            failures.map { "\($0.message)" } == [
                "statement failed: INSERT INTO note (title) VALUES ('same')", "statement failed: SELEKT 1",
                "statement failed: INSERT INTO note (title) VALUES (?)",
            ])
        let errors = failures.map { "\($0.metadata["error"] ?? "")" }
        #expect(errors.first?.contains("UNIQUE constraint failed: note.title") == true)
        #expect(errors.dropFirst().first?.contains("syntax error") == true)
        #expect(errors.last?.contains("UNIQUE constraint failed: note.title") == true)
        // The connection goes on, and reports as before.
        try db.execute(query: "INSERT INTO note (title) VALUES ('other')")
        #expect(handler.entries.count == 3)
    }

    @Test func nothingIsReportedByDefault() throws {
        let db = try Database()
        #expect(db.observability.isOff)
        #expect(db.connection.observer == nil)
        let (logger, _) = Self.capturingLogger()
        db.observability = DatabaseObservability(logger: logger)
        #expect(db.connection.observer != nil)
        db.observability = DatabaseObservability()
        #expect(db.connection.observer == nil)
    }

    // MARK: Tracing

    @Test func aPoolOperationIsASpanAndItsStatementsAreItsChildren() async throws {
        TestBackends.reset()
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.path("traced.sqlite"), observability: DatabaseObservability(tracing: true))
        try await pool.write { db in try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)") }
        TestBackends.tracer.clearAll()

        try await withSpan("request") { _ in
            try await pool.write { db in
                try db.execute(query: "INSERT INTO note (title) VALUES (?)", parameters: "hidden value")
            }
            _ = try await pool.read { db in try db.fetchAll(String.self, query: "SELECT title FROM note") }
        }
        await pool.close()

        let spans = TestBackends.tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let write = try #require(spans.first { $0.operationName == "DatabasePool.write" })
        let read = try #require(spans.first { $0.operationName == "DatabasePool.read" })
        #expect(write.parentSpanID == request.spanID && read.parentSpanID == request.spanID)
        #expect(write.kind == .client)
        #expect(write.attributes["db.system.name"]?.toSpanAttribute() == .string("sqlite"))

        let insert = try #require(spans.first { $0.operationName == "INSERT" })
        #expect(insert.parentSpanID == write.spanID)
        #expect(insert.traceID == request.traceID)
        #expect(insert.attributes["db.system.name"]?.toSpanAttribute() == .string("sqlite"))
        #expect(insert.attributes["db.operation.name"]?.toSpanAttribute() == .string("INSERT"))
        #expect(
            insert.attributes["db.query.text"]?.toSpanAttribute() == .string("INSERT INTO note (title) VALUES (?)"))
        #expect(!spans.contains { "\($0.attributes)".contains("hidden value") })
        let select = try #require(spans.first { $0.operationName == "SELECT" && $0.parentSpanID == read.spanID })
        #expect(select.attributes["db.response.returned_rows"] == nil)  // rows are counted only for trace logs
        // BEGIN and COMMIT of the write are statements of the write span too.
        #expect(spans.filter { $0.parentSpanID == write.spanID }.map(\.operationName).contains("COMMIT"))
        #expect(insert.endInstant.nanosecondsSinceEpoch >= insert.startInstant.nanosecondsSinceEpoch)
    }

    @Test func aFailedStatementsSpanRecordsTheError() async throws {
        TestBackends.reset()
        let db = try Self.notesDatabase(DatabaseObservability(tracing: true))
        try db.execute(query: "INSERT INTO note (title) VALUES ('same')")
        #expect(throws: DatabaseError.self) { try db.execute(query: "INSERT INTO note (title) VALUES ('same')") }
        #expect(throws: DatabaseError.self) { try db.execute(query: "SELEKT 1") }
        let spans = TestBackends.tracer.finishedSpans
        #expect(spans.count == 3)
        #expect(spans[0].errors.isEmpty && spans[0].status == nil)
        #expect(spans[1].status?.code == .error)
        #expect(spans[1].errors.count == 1)
        let recorded = spans[1].errors.first.map { "\($0.error)" } ?? ""
        #expect(recorded.contains("UNIQUE constraint failed"))
        #expect(spans[2].operationName == "SELEKT")
        #expect(spans[2].status?.code == .error)
    }

    // MARK: Metrics

    @Test func statementsPoolsAndPausableWritesRecordMetrics() async throws {
        TestBackends.reset()
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.path("metrics.sqlite"), readers: 2, observability: DatabaseObservability(metrics: true))
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER UNIQUE)") }
        for value in 1...5 {
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (?)", parameters: value) }
        }
        await #expect(throws: DatabaseError.self) {
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
        }
        for _ in 1...3 {
            _ = try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") }
        }
        await pool.close()

        let metrics = TestBackends.metrics
        let inserts = [("db.operation.name", "INSERT")]
        #expect(metrics.counterTotal(label: StrataMetric.statements, dimensions: inserts) == 6)
        #expect(metrics.counterTotal(label: StrataMetric.statementFailures, dimensions: inserts) == 1)
        #expect(
            metrics.counterTotal(label: StrataMetric.statements, dimensions: [("db.operation.name", "SELECT")]) == 3)
        let durations = try metrics.expectTimer(StrataMetric.statementDuration, inserts)
        #expect(durations.values.count == 6)
        #expect(durations.values.allSatisfy { $0 >= 0 })

        let writerWaits = try metrics.expectTimer(StrataMetric.poolWait, [("kind", "writer")])
        #expect(writerWaits.values.count == 7)
        let readerWaits = try metrics.expectTimer(StrataMetric.poolWait, [("kind", "reader")])
        #expect(readerWaits.values.count == 3)
        let inUse = try metrics.expectMeter(StrataMetric.poolConnectionsInUse, [("kind", "writer")])
        #expect(inUse.values.max() == 1)
        #expect(inUse.lastValue == 0)
    }

    @Test func aPausableWriteThatGivesWayCountsAYield() async throws {
        TestBackends.reset()
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.path("pausable.sqlite"), observability: DatabaseObservability(metrics: true))
        try await pool.write { db in try db.execute(query: "CREATE TABLE item (source TEXT NOT NULL)") }
        // Timeline: step 5 of the import waits until a small write is queued, then goes on; the import commits and
        // gives way once (a yield), the small write runs, and the import ends at step 10.
        let atStep5 = TestSignal()
        let proceed = DispatchSemaphore(value: 0)
        let smallWrite = Task {
            await atStep5.wait()
            let queued = Task {
                try await pool.write { db in try db.execute(query: "INSERT INTO item VALUES ('small')") }
            }
            await waitUntil { pool.writerWaitingCount == 1 }
            proceed.signal()
            try await queued.value
        }
        var step = 0
        try await pool.pausableWrite { db, stop, _ in
            try db.execute(query: "INSERT INTO item VALUES ('import')")
            if step == 5 {
                atStep5.fire()
                #expect(proceed.wait(timeout: .now() + poolTestTimeout) == .success)
            }
            step += 1
            stop = step == 10
        }
        try await smallWrite.value
        await pool.close()
        #expect(TestBackends.metrics.counterTotal(label: StrataMetric.pausableWriteYields) == 1)
        // The writer is counted once at a time: the pausable write's, then the small write's while it gives way,
        // then the pausable write's again. Four waits: the CREATE, the pausable write, the small write, and the
        // pausable write taking the writer back.
        let inUse = try TestBackends.metrics.expectMeter(StrataMetric.poolConnectionsInUse, [("kind", "writer")])
        #expect(inUse.values.max() == 1)
        #expect(inUse.lastValue == 0)
        #expect(inUse.values.count == 8)
        let waits = try TestBackends.metrics.expectTimer(StrataMetric.poolWait, [("kind", "writer")])
        #expect(waits.values.count == 4)
    }

    @Test func busyRetriesAreCounted() async throws {
        TestBackends.reset()
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let holder = try Database(path: path)
        let waiter = try Database(path: path, busyTimeout: 0.2)
        waiter.observability = DatabaseObservability(metrics: true)
        try holder.beginTransaction(.immediate)
        // The waiter retries until its timeout, then fails with SQLITE_BUSY.
        let error = #expect(throws: DatabaseError.self) { try waiter.execute(query: "BEGIN IMMEDIATE") }
        #expect(error?.resultCode?.primary == .busy)
        try holder.rollbackTransaction()
        let retries = TestBackends.metrics.counterTotal(label: StrataMetric.busyRetries)
        #expect(retries >= 5)
        // The timeout still holds with the counting handler: and a free database is taken at once.
        try waiter.execute(query: "BEGIN IMMEDIATE; COMMIT")
    }

    @Test func theOperationNameIsTheFirstKeyword() {
        #expect(StatementObserver.operationName(of: "select 1") == "SELECT")
        #expect(StatementObserver.operationName(of: "  -- note\n  /* c */ INSERT INTO t VALUES (1)") == "INSERT")
        #expect(StatementObserver.operationName(of: "WITH x AS (SELECT 1) SELECT * FROM x") == "WITH")
        #expect(StatementObserver.operationName(of: "") == "SQL")
        #expect(StatementObserver.operationName(of: "/* unterminated") == "SQL")
    }
}
