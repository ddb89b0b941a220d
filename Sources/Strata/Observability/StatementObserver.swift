internal import CSQLite
import Foundation
import Logging
import Metrics
import Tracing

/// Reports the statements of one connection, as its `DatabaseObservability` asks: installed on the handle with
/// `sqlite3_trace_v2` only when something is asked for, so a connection that reports nothing pays nothing.
///
/// **Only the statements Strata runs for the caller are reported**: each one is registered when Strata prepares it
/// (``register(_:)``) and forgotten when Strata finalizes it (``forget(_:)``). SQLite runs statements of its own on
/// the connection too (it reads the schema again after DDL, `ANALYZE` reads `sqlite_stat1`), which reach the trace
/// hook like the caller's: they are left out, and nothing is kept for them. What the observer keeps is bounded by the
/// statements alive on the connection.
///
/// SQLite calls it on the connection's thread: when a statement finishes (`SQLITE_TRACE_PROFILE`, with its duration,
/// in its last step or at its reset) and, when rows are logged, for each row (`SQLITE_TRACE_ROW`). SQLite reports a
/// statement that failed as finished before its step returns the error, so the report waits: Strata adds the error
/// when the step returns it (``failed(_:statement:sql:)``), or sends the report as it is once the statement is done
/// (``flush()``, called where Strata's statements finish, and before the next report at the latest). The report keeps
/// the time and the trace context of the moment the statement finished.
///
/// See https://www.sqlite.org/c3ref/trace_v2.html
final class StatementObserver {
    let settings: DatabaseObservability
    private let handle: OpaquePointer
    /// Whether rows are counted: only when statements are logged at `.trace`.
    private let countsRows: Bool
    /// The statements Strata prepared on the connection and has not finalized, with the rows each produced in its
    /// current run (counted only when ``countsRows``).
    @exclusivity(unchecked) private var statements: [OpaquePointer: Int] = [:]
    /// The report of the statement that finished last, until it is known whether it failed.
    @exclusivity(unchecked) private var pending: (statement: OpaquePointer, report: Report)?
    @exclusivity(unchecked) private var metrics: [String: StatementMetrics] = [:]
    /// Counts busy retries when metrics are on (see ``installBusyHandler(timeout:)``).
    private let busyRetries: Counter?

    /// What is reported about one statement.
    private struct Report {
        var sql: String
        /// The SQL with its values, when they are logged; spans and metrics never see them.
        var loggedSQL: String?
        var duration: Duration
        var rows: Int?
        var changes: Int?
        var end: DefaultTracerClock.Instant
        var context: ServiceContext?
    }

    private struct StatementMetrics {
        let count: Counter
        let failures: Counter
        let duration: Metrics.Timer
    }

    init(_ settings: DatabaseObservability, handle: OpaquePointer) {
        self.settings = settings
        self.handle = handle
        countsRows = settings.logger.map { $0.logLevel <= .trace } ?? false
        busyRetries = settings.metrics ? Counter(label: StrataMetric.busyRetries) : nil
    }

    /// Installs the trace hook on the handle, or removes it when `observer` is nil. The statements already prepared
    /// on the handle (cached ones) are Strata's: they are registered.
    static func install(_ observer: StatementObserver?, on handle: OpaquePointer) {
        guard let observer else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            observer.register(current)
            statement = sqlite3_next_stmt(handle, current)
        }
        let mask = UInt32(SQLITE_TRACE_PROFILE) | (observer.countsRows ? UInt32(SQLITE_TRACE_ROW) : 0)
        // The connection keeps the observer as long as the hook can call it.
        sqlite3_trace_v2(handle, mask, traceCallback, Unmanaged.passUnretained(observer).toOpaque())
    }

    // MARK: Statements

    /// Reports `statement` from now on: Strata prepared it for the caller.
    func register(_ statement: OpaquePointer) {
        statements[statement] = 0
    }

    /// Stops reporting `statement`: Strata has just finalized it (its address may be reused by the next one).
    func forget(_ statement: OpaquePointer) {
        statements[statement] = nil
    }

    /// Forgets every statement: the connection has closed.
    func forgetAll() {
        statements = [:]
    }

    /// How many statements the observer keeps: for tests that check it stays bounded.
    var registeredStatementCount: Int { statements.count }

    // MARK: Events

    func rowProduced(by statement: OpaquePointer) {
        guard let index = statements.index(forKey: statement) else { return }
        statements.values[index] += 1
    }

    /// Reports `error`: with the statement that just finished when it is that statement's, on its own for a statement
    /// that never ran (it failed to compile).
    func failed(_ error: any Error, statement: OpaquePointer?, sql: String?) {
        if let statement, let pending, pending.statement == statement {
            self.pending = nil
            emit(pending.report, failure: error)
            return
        }
        flush()
        emit(
            Report(
                sql: sql ?? "", duration: .zero, end: DefaultTracerClock.now,
                context: settings.tracing ? ServiceContext.current : nil),
            failure: error)
    }

    /// Sends the report of the statement that finished last: it did not fail.
    func flush() {
        guard let pending else { return }
        self.pending = nil
        emit(pending.report, failure: nil)
    }

    func statementFinished(_ statement: OpaquePointer, nanoseconds: Int64) {
        // A statement of SQLite's own: not the caller's.
        guard let index = statements.index(forKey: statement) else { return }
        let rowCount = countsRows ? statements.values[index] : nil
        statements.values[index] = 0
        let sql = sqlite3_sql(statement).map { String(cString: $0) } ?? ""
        flush()
        var loggedSQL: String?
        if settings.logsBoundValues, settings.logger != nil, let expanded = sqlite3_expanded_sql(statement) {
            loggedSQL = String(cString: expanded)
            sqlite3_free(expanded)
        }
        let changes = sqlite3_stmt_readonly(statement) == 0 ? Int(sqlite3_changes64(handle)) : nil
        pending = (
            statement,
            Report(
                sql: sql, loggedSQL: loggedSQL, duration: .nanoseconds(nanoseconds), rows: rowCount, changes: changes,
                end: DefaultTracerClock.now, context: settings.tracing ? ServiceContext.current : nil)
        )
    }

    // MARK: Reporting

    private func emit(_ report: Report, failure: (any Error)?) {
        let operation = Self.operationName(of: report.sql)
        if let logger = settings.logger {
            let sql = report.loggedSQL ?? report.sql
            var metadata: Logger.Metadata = [
                "db.operation.name": "\(operation)",
                "db.duration_ms": "\(Self.milliseconds(report.duration))",
            ]
            if let rows = report.rows { metadata["db.response.returned_rows"] = "\(rows)" }
            if let changes = report.changes { metadata["db.changes"] = "\(changes)" }
            if let failure {
                metadata["error"] = "\(failure)"
                logger.debug("statement failed: \(sql)", metadata: metadata)
            } else if report.duration >= settings.slowStatementThreshold {
                metadata["db.slow_threshold_ms"] = "\(Self.milliseconds(settings.slowStatementThreshold))"
                logger.warning("slow statement: \(sql)", metadata: metadata)
            } else {
                logger.trace("\(sql)", metadata: metadata)
            }
        }
        if settings.tracing {
            let start = DatabaseInstant(
                nanosecondsSinceEpoch: report.end.nanosecondsSinceEpoch
                    &- UInt64(max(0, Self.nanoseconds(report.duration))))
            let span = startSpan(operation, context: report.context ?? .topLevel, ofKind: .client, at: start)
            span.attributes["db.system.name"] = "sqlite"
            span.attributes["db.query.text"] = report.sql
            span.attributes["db.operation.name"] = operation
            if let rows = report.rows { span.attributes["db.response.returned_rows"] = rows }
            if let failure {
                span.recordError(failure)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end(at: report.end)
        }
        if settings.metrics {
            let recorded = metrics(for: operation)
            recorded.count.increment()
            if failure != nil { recorded.failures.increment() }
            recorded.duration.recordNanoseconds(Self.nanoseconds(report.duration))
        }
    }

    /// The metrics of `operation`: one set per SQL keyword that begins a statement, and one (`SQL`) for text that
    /// begins with anything else (it failed to compile), so that neither this cache nor the metrics' dimensions grow
    /// with what callers send.
    private func metrics(for operation: String) -> StatementMetrics {
        let operation = Self.statementKeywords.contains(operation) ? operation : "SQL"
        if let found = metrics[operation] { return found }
        let dimensions = [("db.operation.name", operation)]
        let made = StatementMetrics(
            count: Counter(label: StrataMetric.statements, dimensions: dimensions),
            failures: Counter(label: StrataMetric.statementFailures, dimensions: dimensions),
            duration: Metrics.Timer(label: StrataMetric.statementDuration, dimensions: dimensions))
        metrics[operation] = made
        return made
    }

    /// The keywords an SQLite statement begins with. See https://www.sqlite.org/lang.html
    private static let statementKeywords: Set<String> = [
        "ALTER", "ANALYZE", "ATTACH", "BEGIN", "COMMIT", "CREATE", "DELETE", "DETACH", "DROP", "END", "EXPLAIN",
        "INSERT", "PRAGMA", "REINDEX", "RELEASE", "REPLACE", "ROLLBACK", "SAVEPOINT", "SELECT", "UPDATE", "VACUUM",
        "VALUES", "WITH",
    ]

    /// The statement's first keyword, upper-cased: `SELECT`, `INSERT`, `PRAGMA`...
    static func operationName(of sql: String) -> String {
        DatabaseObservability.operationName(of: sql)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        DatabaseObservability.nanoseconds(duration)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        DatabaseObservability.milliseconds(duration)
    }

    // MARK: Busy retries

    /// Waits out a lock another connection holds as `sqlite3_busy_timeout` does, counting each retry.
    func installBusyHandler(timeout milliseconds: Int32) {
        guard busyRetries != nil else {
            sqlite3_busy_timeout(handle, milliseconds)
            return
        }
        busyTimeoutMilliseconds = milliseconds
        sqlite3_busy_handler(handle, busyCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    @exclusivity(unchecked) private var busyTimeoutMilliseconds: Int32 = 0

    /// Whether to retry after the `attempt`-th wait (from 0), having slept first: SQLite's own sleeps
    /// (``BusyBackoff``), cut short at the timeout.
    fileprivate func retryAfterBusy(attempt: Int32) -> Bool {
        let before = BusyBackoff.slept(before: attempt)
        var delay = BusyBackoff.delay(attempt: attempt)
        if before + delay > Int64(busyTimeoutMilliseconds) {
            delay = Int64(busyTimeoutMilliseconds) - before
            if delay <= 0 { return false }
        }
        busyRetries?.increment()
        sqlite3_sleep(Int32(delay))
        return true
    }

    /// A wait the connection made outside SQLite's busy handler (the switch to WAL).
    func countBusyRetry() {
        busyRetries?.increment()
    }
}

/// A tracer instant a span starts at: the end of the statement minus its duration.
private struct DatabaseInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}

private func traceCallback(
    event: UInt32, context: UnsafeMutableRawPointer?, first: UnsafeMutableRawPointer?,
    second: UnsafeMutableRawPointer?
) -> Int32 {
    guard let context, let first else { return 0 }
    let observer = Unmanaged<StatementObserver>.fromOpaque(context).takeUnretainedValue()
    let statement = OpaquePointer(first)
    switch Int32(event) {
    case SQLITE_TRACE_ROW:
        observer.rowProduced(by: statement)
    case SQLITE_TRACE_PROFILE:
        let nanoseconds = second?.load(as: Int64.self) ?? 0
        observer.statementFinished(statement, nanoseconds: nanoseconds)
    default:
        break
    }
    return 0
}

private func busyCallback(context: UnsafeMutableRawPointer?, attempt: Int32) -> Int32 {
    guard let context else { return 0 }
    let observer = Unmanaged<StatementObserver>.fromOpaque(context).takeUnretainedValue()
    return observer.retryAfterBusy(attempt: attempt) ? 1 : 0
}
