import Foundation
public import Logging

/// What a database reports about its work: a log line per statement, a span per statement and per pool
/// operation, and metrics. All off by default, at no cost: nothing is installed until something is asked for. The
/// same settings, log lines, span attributes and metric names on every backend (`DatabasePool`, `DatabaseQueue`,
/// `Database` on SQLite; `PostgresPool` on PostgreSQL).
///
/// ```swift
/// var logger = Logger(label: "notes.db")
/// logger.logLevel = .trace
/// let pool = try DatabasePool(
///     path: "notes.sqlite",
///     observability: DatabaseObservability(logger: logger, tracing: true, metrics: true))
/// ```
///
/// - **Every statement Strata runs for the caller is reported, and only those**, whatever its SQL begins with (a
///   `-- name: X` comment included) and whichever way it runs, with the transaction statements of a `read` or
///   `write` (`BEGIN`, `COMMIT`...); the statements SQLite runs on its own (reading the schema after DDL) are not.
/// - **Statements are logged at `.trace`**, with their SQL, duration and rows; **statements slower than
///   ``slowStatementThreshold`` at `.warning`**; **failures at `.debug`**, with the error.
/// - **Bound values are never logged** unless ``logsBoundValues`` is set: the SQL is logged as written, with its
///   `?`, `$n` and `:name` placeholders. Nor is PostgreSQL's `DETAIL` line, which quotes row values: a failure is
///   logged with its error's description, which leaves it out (see `PostgresError`).
/// - **Spans** (swift-distributed-tracing, through `InstrumentationSystem.tracer`) follow OpenTelemetry's database
///   conventions: `db.system.name` is `sqlite` or `postgresql`, `db.query.text` the SQL (never the values),
///   `db.operation.name` its first keyword (`SELECT`, `INSERT`...), the span name that keyword. A pool's `read` and
///   `write` are spans too (`DatabasePool.read`, `PostgresPool.write`...), and the statements they run are their
///   children, under the caller's span: a Hummingbird app's tracing middleware shows the database under each
///   request.
/// - **Metrics** (swift-metrics, through `MetricsSystem`): see ``StrataMetric``.
///
/// See https://opentelemetry.io/docs/specs/semconv/database/
public struct DatabaseObservability: Sendable {
    /// Where statements are logged; nil logs nothing.
    public var logger: Logger?
    /// How long a statement runs before it is logged at `.warning`: 500 ms by default.
    public var slowStatementThreshold: Duration
    /// Whether the logged SQL shows the bound values (`sqlite3_expanded_sql` on SQLite; the values after the SQL,
    /// as `$1 = ...`, on PostgreSQL). Off by default: values may be private data. Spans and metrics never carry them.
    public var logsBoundValues: Bool
    /// Whether statements and pool operations are traced as spans.
    public var tracing: Bool
    /// Whether statements, pools and writes record metrics.
    public var metrics: Bool

    public init(
        logger: Logger? = nil,
        slowStatementThreshold: Duration = .milliseconds(500),
        logsBoundValues: Bool = false,
        tracing: Bool = false,
        metrics: Bool = false
    ) {
        self.logger = logger
        self.slowStatementThreshold = slowStatementThreshold
        self.logsBoundValues = logsBoundValues
        self.tracing = tracing
        self.metrics = metrics
    }

    /// Whether nothing is reported.
    public var isOff: Bool {
        logger == nil && !tracing && !metrics
    }
}

/// The metrics Strata records when ``DatabaseObservability/metrics`` is on, by label.
public enum StrataMetric {
    /// Counter: statements run, by `db.operation.name` (`SELECT`, `INSERT`...; `SQL` for text that did not compile).
    public static let statements = "strata_statements_total"
    /// Counter: statements that failed, by `db.operation.name`.
    public static let statementFailures = "strata_statement_failures_total"
    /// Timer: how long statements ran, by `db.operation.name`.
    public static let statementDuration = "strata_statement_duration_seconds"
    /// Timer: how long a pool's or queue's `read`, `write`, stream, backup or pausable write waited for a connection
    /// (a pausable write also each time it takes the connection back after giving way), by `kind` (`writer`,
    /// `reader`, `queue` on SQLite; `primary`, `replica` on PostgreSQL).
    public static let poolWait = "strata_pool_wait_duration_seconds"
    /// Meter: a pool's or queue's connections at work, by `kind` (`writer`, `reader`, `queue` on SQLite; `primary`,
    /// `replica` on PostgreSQL): each one lent to a `read`, `write`, stream iteration, backup or pausable write counts
    /// until it comes back, however that ends.
    public static let poolConnectionsInUse = "strata_pool_connections_in_use"
    /// Counter: times a pausable write committed to give way to other work (SQLite).
    public static let pausableWriteYields = "strata_pausable_write_yields_total"
    /// Counter: times a connection found the database locked by another connection and waited to retry
    /// (`SQLITE_BUSY`, within the busy timeout).
    public static let busyRetries = "strata_busy_retries_total"
}

extension DatabaseObservability {
    /// The statement's first keyword, upper-cased: `SELECT`, `INSERT`, `PRAGMA`...; `SQL` when it begins with no
    /// keyword. Leading whitespace and comments are skipped; `WITH` is followed to the statement it introduces only
    /// as far as its first keyword, so it stays `WITH`.
    package static func operationName(of sql: String) -> String {
        var keyword = ""
        var scalars = sql.unicodeScalars[...]
        // Skip leading whitespace and comments.
        while let first = scalars.first {
            if first.properties.isWhitespace {
                scalars = scalars.dropFirst()
            } else if scalars.starts(with: "--".unicodeScalars) {
                scalars = scalars.drop { $0 != "\n" }
            } else if scalars.starts(with: "/*".unicodeScalars) {
                scalars = scalars.dropFirst(2)
                while !scalars.isEmpty && !scalars.starts(with: "*/".unicodeScalars) { scalars = scalars.dropFirst() }
                scalars = scalars.dropFirst(2)
            } else {
                break
            }
        }
        for scalar in scalars {
            guard scalar.isASCII, scalar.properties.isAlphabetic else { break }
            keyword.unicodeScalars.append(scalar)
        }
        return keyword.isEmpty ? "SQL" : keyword.uppercased()
    }

    /// `duration` in nanoseconds, for swift-metrics' timers.
    package static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }

    /// `duration` in milliseconds with three decimals, as the logs show it.
    package static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.3f", duration / .milliseconds(1))
    }
}
