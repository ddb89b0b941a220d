import Foundation
internal import Logging
internal import Metrics
internal import StrataCore
internal import Tracing

/// Reports the statements of a ``PostgresPool``'s sessions and the pool's operations, as its
/// ``DatabaseObservability`` asks: the same log lines, span attributes and metrics as on SQLite, with
/// `db.system.name` = `postgresql`. Made only when something is asked for, so a pool that reports nothing pays one
/// nil check per statement.
///
/// A statement is reported when it ends: a statement whose rows are collected when they have all arrived, a cursor's
/// or a stream's when its last row was read, it failed, or it was left. Its report keeps the trace context of the
/// task that ran it, so that its span is a child of the caller's `read` or `write`.
///
/// **What it reports never holds a value**: the SQL as sent, with its `$n` placeholders (the values only in log lines,
/// and only with ``DatabaseObservability/logsBoundValues``); a failure as its error's description, which leaves out
/// PostgreSQL's `DETAIL` line and the values a data exception's message quotes (see ``PostgresError``).
final class PostgresObserver: Sendable {
    let settings: DatabaseObservability
    /// Whether rows are counted for the logs: only when statements are logged at `.trace`.
    let countsRows: Bool
    private let statementMetrics = LockedValue<[String: StatementMetrics]>([:])

    /// When a statement began, and the trace context it runs in.
    struct Start: Sendable {
        let instant: ContinuousClock.Instant
        let tracerInstant: DefaultTracerClock.Instant
        let context: ServiceContext?
    }

    /// A statement begun and not yet reported: a cursor's, reported when its result ends.
    struct Pending: Sendable {
        let observer: PostgresObserver
        let start: Start
        let values: [PostgresValue]
    }

    private struct StatementMetrics: Sendable {
        let count: Counter
        let failures: Counter
        let duration: Metrics.Timer
    }

    /// An observer for `settings`, or nil when they ask for nothing.
    init?(_ settings: DatabaseObservability) {
        guard !settings.isOff else { return nil }
        self.settings = settings
        countsRows = settings.logger.map { $0.logLevel <= .trace } ?? false
    }

    /// Notes the beginning of a statement.
    func begin() -> Start {
        Start(
            instant: .now, tracerInstant: DefaultTracerClock.now,
            context: settings.tracing ? ServiceContext.current : nil)
    }

    /// Reports a statement that began at `start` and has just ended.
    ///
    /// - Parameters:
    ///   - sql: The SQL as sent, with its `$n` placeholders.
    ///   - values: The bound values, logged only with ``DatabaseObservability/logsBoundValues``.
    ///   - rows: The rows it returned, when counted.
    ///   - changes: The rows it changed, for a statement that changes rows.
    ///   - failure: Why it failed.
    func end(
        _ start: Start, sql: String, values: [PostgresValue], rows: Int?, changes: Int?, failure: (any Error)?
    ) {
        let duration = ContinuousClock.now - start.instant
        let operation = DatabaseObservability.operationName(of: sql)
        if let logger = settings.logger {
            var logged = sql
            if settings.logsBoundValues, !values.isEmpty {
                logged +=
                    " -- "
                    + values.enumerated().map { "$\($0.offset + 1) = \($0.element.logged)" }.joined(
                        separator: ", ")
            }
            var metadata: Logger.Metadata = [
                "db.operation.name": "\(operation)",
                "db.duration_ms": "\(DatabaseObservability.milliseconds(duration))",
            ]
            if countsRows, let rows { metadata["db.response.returned_rows"] = "\(rows)" }
            if let changes { metadata["db.changes"] = "\(changes)" }
            if let failure {
                metadata["error"] = "\(Self.describe(failure))"
                logger.debug("statement failed: \(logged)", metadata: metadata)
            } else if duration >= settings.slowStatementThreshold {
                metadata["db.slow_threshold_ms"] =
                    "\(DatabaseObservability.milliseconds(settings.slowStatementThreshold))"
                logger.warning("slow statement: \(logged)", metadata: metadata)
            } else {
                logger.trace("\(logged)", metadata: metadata)
            }
        }
        if settings.tracing {
            let span = startSpan(
                operation, context: start.context ?? .topLevel, ofKind: .client, at: start.tracerInstant)
            span.attributes["db.system.name"] = "postgresql"
            span.attributes["db.query.text"] = sql
            span.attributes["db.operation.name"] = operation
            if countsRows, let rows { span.attributes["db.response.returned_rows"] = rows }
            if let failure {
                span.recordError(PostgresObservedError(description: Self.describe(failure)))
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
        if settings.metrics {
            let recorded = metrics(for: operation)
            recorded.count.increment()
            if failure != nil { recorded.failures.increment() }
            recorded.duration.recordNanoseconds(DatabaseObservability.nanoseconds(duration))
        }
    }

    /// What a report says of `failure`: its description, which for a ``PostgresError`` leaves out the `DETAIL` line
    /// and the values a data exception's message quotes.
    private static func describe(_ failure: any Error) -> String {
        "\(failure)"
    }

    /// The metrics of `operation`: one set per SQL keyword that begins a statement, and one (`SQL`) for anything
    /// else, so that neither this cache nor the metrics' dimensions grow with what callers send.
    private func metrics(for operation: String) -> StatementMetrics {
        let operation = Self.statementKeywords.contains(operation) ? operation : "SQL"
        return statementMetrics.withLock { cache in
            if let found = cache[operation] { return found }
            let dimensions = [("db.operation.name", operation)]
            let made = StatementMetrics(
                count: Counter(label: StrataMetric.statements, dimensions: dimensions),
                failures: Counter(label: StrataMetric.statementFailures, dimensions: dimensions),
                duration: Metrics.Timer(label: StrataMetric.statementDuration, dimensions: dimensions))
            cache[operation] = made
            return made
        }
    }

    /// The keywords a PostgreSQL statement begins with. See https://www.postgresql.org/docs/current/sql-commands.html
    private static let statementKeywords: Set<String> = [
        "ABORT", "ALTER", "ANALYZE", "BEGIN", "CALL", "CHECKPOINT", "CLOSE", "CLUSTER", "COMMENT", "COMMIT", "COPY",
        "CREATE", "DEALLOCATE", "DECLARE", "DELETE", "DISCARD", "DO", "DROP", "END", "EXECUTE", "EXPLAIN", "FETCH",
        "GRANT", "IMPORT", "INSERT", "LISTEN", "LOAD", "LOCK", "MERGE", "MOVE", "NOTIFY", "PREPARE", "REASSIGN",
        "REFRESH", "REINDEX", "RELEASE", "RESET", "REVOKE", "ROLLBACK", "SAVEPOINT", "SECURITY", "SELECT", "SET",
        "SHOW", "START", "TABLE", "TRUNCATE", "UNLISTEN", "UPDATE", "VACUUM", "VALUES", "WITH",
    ]
}

/// The error a span records for a failed statement: its description only, so that an exporter that reflects on the
/// error finds nothing else (a ``PostgresError``'s `detail` quotes row values).
struct PostgresObservedError: Error, CustomStringConvertible {
    let description: String
}

/// The spans and metrics of a pool's operations on one server: its `read`s and `write`s as spans, the wait for a
/// connection and the connections lent.
struct PostgresPoolInstruments: Sendable {
    let tracing: Bool
    let waitTime: Metrics.Timer?
    let inUse: Meter?

    /// The instruments of the connections to one server, `kind` being `primary` or `replica`; nil when neither spans
    /// nor metrics are asked for.
    init?(kind: String, _ observability: DatabaseObservability) {
        guard observability.tracing || observability.metrics else { return nil }
        tracing = observability.tracing
        let dimensions = [("kind", kind)]
        waitTime = observability.metrics ? Metrics.Timer(label: StrataMetric.poolWait, dimensions: dimensions) : nil
        inUse = observability.metrics ? Meter(label: StrataMetric.poolConnectionsInUse, dimensions: dimensions) : nil
    }

    /// A connection lent after a wait that began at `requested`.
    func connectionLent(waitingSince requested: ContinuousClock.Instant) {
        waitTime?.recordNanoseconds(DatabaseObservability.nanoseconds(ContinuousClock.now - requested))
        inUse?.increment()
    }

    /// A lent connection given back, however its work ended.
    func connectionReturned() {
        inUse?.decrement()
    }
}

extension PostgresValue {
    /// The value as a log line shows it, with ``DatabaseObservability/logsBoundValues`` only.
    var logged: String {
        switch self {
        case .null: return "NULL"
        case .int8(let value): return "\(value)"
        case .float8(let value): return "\(value)"
        case .float4(let value): return "\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .text(let value): return Self.quoted(value)
        case .bytea(let bytes): return "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
        case .uuid(let value): return Self.quoted(value.uuidString.lowercased())
        case .timestamptz(let value): return Self.quoted(ISO8601DateFormatter().string(from: value))
        case .numeric(let value): return value
        case .jsonb(let value): return Self.quoted(value)
        }
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
