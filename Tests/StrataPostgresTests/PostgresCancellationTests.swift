import Foundation
import StrataPostgres
import Testing

/// A cancelled task cancels its statement on the server: it ends at once, and its connection serves the next
/// request.
@Suite("PostgreSQL cancellation", .postgresServer, .timeLimit(.minutes(2)))
struct PostgresCancellationTests {
    /// Waits until a statement whose text starts with `prefix` runs on the server for `application`.
    static func waitUntilRunning(_ prefix: String, application: String) async throws {
        let admin = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
        for _ in 0..<400 {
            let running = try await admin.read { db in
                try await db.fetchOne(
                    Int.self,
                    query: "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name AND state = 'active' "
                        + "AND starts_with(query, :prefix)",
                    parameters: ["name": application, "prefix": prefix])
            }
            if running == 1 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        await admin.close()
    }

    /// The statements still running on the server for `application`.
    static func running(application: String) async throws -> Int {
        let admin = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
        let count = try await admin.read { db in
            try await db.fetchOne(
                Int.self,
                query: "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name AND state = 'active'",
                parameters: ["name": application])
        }
        await admin.close()
        return count ?? -1
    }

    enum Call: String, CaseIterable, Sendable {
        case execute, fetchAll, fetchOne, cursor, write
    }

    @Test(
        "a cancelled pg_sleep(600) ends, is cancelled on the server, and its connection is reused",
        arguments: Call.allCases)
    func cancelledStatement(_ call: Call) async throws {
        let application = "strata-cancel-" + UUID().uuidString.prefix(8).lowercased()
        try await PostgresTestServer.withPool(connections: 1, applicationName: application) { pool in
            let pid = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT pg_backend_pid()") }
            let sleep = "SELECT 1 FROM pg_sleep(600)"
            let task = Task {
                switch call {
                case .execute:
                    try await pool.read { db in try await db.execute(query: sleep) }
                case .fetchAll:
                    _ = try await pool.read { db in try await db.fetchAll(Int.self, query: sleep) }
                case .fetchOne:
                    _ = try await pool.read { db in try await db.fetchOne(Int.self, query: sleep) }
                case .cursor:
                    try await pool.read { db in
                        for try await _ in try await db.fetchCursor(Int.self, query: sleep) {}
                    }
                case .write:
                    try await pool.write { db in try await db.execute(query: sleep) }
                }
            }
            try await Self.waitUntilRunning(sleep, application: application)
            task.cancel()
            // The sleep takes 10 minutes: the call ends long before unless the cancel failed, and then the guard
            // ends the test rather than the clock deciding what is "fast".
            let result = try await within(60, "the cancelled \(call)") { await task.result }
            #expect(throws: CancellationError.self) { try result.get() }
            // Nothing runs on the server any more (the statement was cancelled there, not just left by the client),
            // and the same connection serves the next read.
            #expect(try await Self.running(application: application) == 0)
            let (after, answer) = try await pool.read { db in
                (
                    try await db.fetchOne(Int.self, query: "SELECT pg_backend_pid()"),
                    try await db.fetchOne(Int.self, query: "SELECT 42")
                )
            }
            #expect(after == pid)
            #expect(answer == 42)
        }
    }

    @Test("a cancelled write rolls back what it wrote before its cancelled statement")
    func cancelledWriteRollsBack() async throws {
        let application = "strata-cancel-" + UUID().uuidString.prefix(8).lowercased()
        try await PostgresTestServer.withPool(connections: 1, applicationName: application) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE c (a int)") }
            let sleep = "SELECT 1 FROM pg_sleep(600)"
            let task = Task {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO c VALUES (1)")
                    try await db.execute(query: sleep)
                }
            }
            try await Self.waitUntilRunning(sleep, application: application)
            task.cancel()
            let result = try await within(60, "the cancelled write") { await task.result }
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM c") } == 0)
        }
    }
}
