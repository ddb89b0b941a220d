import Foundation
import Strata
import StrataPostgres
import StrataTesting
import Testing

/// The PostgreSQL server the tests run against: `STRATA_POSTGRES_URL`, which `.ci/run` sets to a throwaway cluster.
///
/// Without it the suites are skipped locally, and fail when `CI` is `true`: a CI run never passes without them.
enum PostgresTestServer {
    static var url: String? {
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether the suites run: a server is named, or this is CI, where a missing server is a failure.
    static var shouldRun: Bool { url != nil || isCI }

    /// The server's URL, or a recorded failure.
    static func requireURL() throws -> String {
        try #require(url, "STRATA_POSTGRES_URL is not set: CI=true needs a PostgreSQL server (see .ci/run)")
    }

    /// A URL of the same server for the role `strata_password`, which must give its password (`.ci/run` sets up
    /// the role, a `pg_hba.conf` line asking it for a SCRAM password, and `STRATA_POSTGRES_PASSWORD_URL`), or a
    /// recorded failure.
    static func requirePasswordURL() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["STRATA_POSTGRES_PASSWORD_URL"].flatMap { $0.isEmpty ? nil : $0 },
            "STRATA_POSTGRES_PASSWORD_URL is not set: the password tests need a role that gives one (see .ci/run)")
    }

    /// `url` with `parameter=value` added to its query.
    static func adding(_ parameter: String, _ value: String, to url: String) throws -> String {
        var components = try #require(URLComponents(string: url))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: parameter, value: value)]
        return try #require(components.string)
    }

    /// Runs `body` with a pool whose connections all use a fresh schema of their own (through the URL's
    /// `options=-c search_path=...`), so that tests running in parallel never see each other's tables; the pool is
    /// closed and the schema dropped afterwards. `replicaNames` adds replicas on the same server and schema, each
    /// connecting with that `application_name`, so that a test can tell where a read ran. `settings` are more
    /// `-c name=value` options for the pool's connections (`-c TimeZone=Asia/Tokyo`). `url` is another server or
    /// role than `STRATA_POSTGRES_URL`'s (the schema is then created by that role), and `applicationName` names the
    /// primary's connections (`strata-primary` by default). `observability` is the pool's.
    static func withPool<Result: Sendable>(
        connections: Int = 4, replicaNames: [String] = [], settings: String = "", url: String? = nil,
        applicationName: String = "strata-primary", observability: DatabaseObservability = DatabaseObservability(),
        _ body: @Sendable (PostgresPool) async throws -> Result
    ) async throws -> Result {
        let url = try url ?? requireURL()
        let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let scoped = try adding(
            "options", "-c search_path=\(schema)" + (settings.isEmpty ? "" : " " + settings), to: url)
        let admin = try PostgresPool(url: url, connections: 1)
        let pool = try PostgresPool(
            url: try adding("application_name", applicationName, to: scoped), connections: connections,
            replicas: try replicaNames.map { try adding("application_name", $0, to: scoped) },
            observability: observability)
        let result: Swift.Result<Result, any Error>
        do {
            try await admin.write { db in try await db.execute(query: "CREATE SCHEMA \"\(schema)\"") }
            result = .success(try await body(pool))
        } catch {
            result = .failure(error)
        }
        await pool.close()
        do {
            try await admin.write { db in try await db.execute(query: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") }
        } catch {
            if case .success = result {
                await admin.close()
                throw error
            }
        }
        await admin.close()
        return try result.get()
    }

    /// The URL of the role `strata_limited`, which `.ci/run` creates with `CONNECTION LIMIT 3`, or a recorded
    /// failure.
    static func requireLimitedURL() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["STRATA_POSTGRES_LIMITED_URL"].flatMap { $0.isEmpty ? nil : $0 },
            "STRATA_POSTGRES_LIMITED_URL is not set: the connection limit tests need a role with CONNECTION LIMIT 3 (see .ci/run)"
        )
    }
}

/// A second PostgreSQL server that tests may stop and start: `.ci/run` starts it for them and names it in
/// `STRATA_POSTGRES_DISPOSABLE_URL`, its data directory in `STRATA_POSTGRES_DISPOSABLE_PGDATA`, its `pg_ctl` in
/// `STRATA_POSTGRES_DISPOSABLE_PG_CTL` and the system user that runs it in `STRATA_POSTGRES_DISPOSABLE_OS_USER`
/// (when the tests run as root; `pg_ctl` refuses root).
struct DisposableServer {
    let url: String
    let dataDirectory: String
    let pgCtl: String
    let osUser: String?

    /// The server `.ci/run` started, or a recorded failure.
    static func require() throws -> DisposableServer {
        let environment = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let missing = "is not set: the tests that stop and start a server need the disposable cluster of .ci/run"
        return DisposableServer(
            url: try #require(value("STRATA_POSTGRES_DISPOSABLE_URL"), "STRATA_POSTGRES_DISPOSABLE_URL \(missing)"),
            dataDirectory: try #require(
                value("STRATA_POSTGRES_DISPOSABLE_PGDATA"), "STRATA_POSTGRES_DISPOSABLE_PGDATA \(missing)"),
            pgCtl: try #require(
                value("STRATA_POSTGRES_DISPOSABLE_PG_CTL"), "STRATA_POSTGRES_DISPOSABLE_PG_CTL \(missing)"),
            osUser: value("STRATA_POSTGRES_DISPOSABLE_OS_USER"))
    }

    /// Stops the server (`pg_ctl stop -m fast`: sessions are ended, as in a restart).
    func stop() async throws {
        try await pgCtl(["stop", "-m", "fast", "-w"])
    }

    /// Starts the server and waits until it accepts connections.
    func start() async throws {
        try await pgCtl(["start", "-w", "-l", dataDirectory + "/../server.log"])
    }

    /// Runs `pg_ctl -D dataDirectory arguments`, as `osUser` when there is one.
    ///
    /// Spawned and reaped with `ChildProcess` rather than with Foundation's `Process`, whose `waitUntilExit()` missed
    /// the exit of `runuser` while the suite ran many processes at once (it stayed a zombie, and the test hung), and
    /// which would block a thread of the concurrency pool while it waits.
    private func pgCtl(_ arguments: [String]) async throws {
        var command = [pgCtl, "-D", dataDirectory] + arguments
        if let osUser, getuid() == 0 {
            command = ["/usr/sbin/runuser", "-u", osUser, "--"] + command
        }
        // From `/`, as the server finds its own executable from the current folder, which a test running beside may
        // have removed. `ChildProcess` gives the child none of the test process's descriptors, so the server started
        // here does not hold the test's connections to the other clusters open after the tests end.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-ctl-\(UUID()).stderr")
        defer { try? FileManager.default.removeItem(at: errors) }
        let child = try ChildProcess.spawn(
            command[0], Array(command.dropFirst()), in: "/", standardError: .file(errors.path))
        let termination = try await child.exit()
        let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        try #require(
            termination == .exited(0), "\(command.joined(separator: " ")) failed (\(termination)): \(message)")
    }
}

/// Runs `body` and returns its value, or records a failure and throws after `seconds` when it has not returned:
/// for tests of hangs, which must fail instead of hanging. A body that hangs for good is left behind.
func within<Result: Sendable>(
    _ seconds: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let outcome = LockedBox<CheckedContinuation<Result, any Error>?>(nil)
    let work = Task { try await body() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            outcome.set(continuation)
            Task {
                let result = await work.result
                outcome.take()?.resume(with: result)
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                if let continuation = outcome.take() {
                    Issue.record("\(what) did not end within \(seconds) s", sourceLocation: sourceLocation)
                    continuation.resume(throwing: TimedOut(description: "\(what): no end within \(seconds) s"))
                }
            }
        }
    } onCancel: {
        work.cancel()
    }
}

/// The error of ``within(_:_:sourceLocation:_:)`` when its body did not end in time.
struct TimedOut: Error, CustomStringConvertible {
    let description: String
}

/// A value behind a lock, for the tests' own bookkeeping.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }

    func get() -> Value { lock.withLock { value } }

    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

extension LockedBox {
    /// The continuation, taken once.
    func take<T>() -> T? where Value == T? {
        lock.withLock {
            defer { value = nil }
            return value
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the suite when a PostgreSQL server is named, or in CI (where a missing one fails the tests).
    static var postgresServer: Self {
        .enabled(if: PostgresTestServer.shouldRun, "STRATA_POSTGRES_URL is not set: no PostgreSQL server to test")
    }
}

/// The notes of Strata's example schema, with an identity key.
struct Note: Model, Equatable {
    static let tableName = "note"
    var id: Int64?
    var createdAt: Date
    var content: String
    var mood: String

    static let createTable = """
        CREATE TABLE note (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            "createdAt" timestamptz NOT NULL,
            content text NOT NULL,
            mood text NOT NULL
        )
        """
}

extension Trait where Self == ConditionTrait {
    /// Leaves out a suite that bounds durations when a sanitizer slows the client down.
    static var notUnderSanitizer: Self {
        .disabled(if: isRunningUnderSanitizer, "it bounds durations, which a sanitizer's slowdown makes meaningless")
    }
}
