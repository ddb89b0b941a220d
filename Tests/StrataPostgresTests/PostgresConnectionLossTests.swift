import Foundation
import StrataPostgres
import StrataTesting
import Testing

/// A connection the server ends (`idle_in_transaction_session_timeout`, `pg_terminate_backend`) fails its next
/// statement within seconds with `.connectionLost`, is never reported as committed, and is replaced: the pool serves
/// the next requests.
@Suite("PostgreSQL connection loss", .postgresServer, .timeLimit(.minutes(6)))
struct PostgresConnectionLossTests {
    /// Waits until the server process `pid` has ended, polling `pg_stat_activity` from a connection of its own.
    static func waitUntilGone(_ pid: Int) async throws {
        let admin = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
        for _ in 0..<400 {
            let alive = try await admin.read { db in
                try await db.fetchOne(
                    Int.self, query: "SELECT count(*) FROM pg_stat_activity WHERE pid = :pid", parameters: ["pid": pid])
            }
            if alive == 0 {
                await admin.close()
                return
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        await admin.close()
        Issue.record("server process \(pid) did not end")
    }

    /// Runs `body` in a read, again when its connection was lost (the test terminates connections meanwhile).
    static func readRetrying<Result: Sendable>(
        _ pool: PostgresPool, _ body: (PostgresSession) async throws -> Result
    ) async throws -> Result {
        for _ in 0..<9 {
            do {
                return try await pool.read(body)
            } catch let error as PostgresError where error.code == .connectionLost || error.code == .connectionFailed {
                continue
            }
        }
        return try await pool.read(body)
    }

    @Test("a statement after idle_in_transaction_session_timeout ended the session throws connectionLost")
    func idleInTransactionTimeout() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let error = try await within(hangBound, "the statement after the server ended the session") {
                await #expect(throws: PostgresError.self) {
                    try await pool.write { db in
                        try await db.execute(query: "SET LOCAL idle_in_transaction_session_timeout = '50ms'")
                        let pid = try #require(try await db.fetchOne(Int.self, query: "SELECT pg_backend_pid()"))
                        try await Self.waitUntilGone(pid)
                        try await db.execute(query: "SELECT 1")
                    }
                }
            }
            #expect(error?.code == .connectionLost)
            #expect(error?.description.contains("\n") == false)
            // The pool replaced the connection.
            let answer = try await within(hangBound, "the next read") {
                try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 42") }
            }
            #expect(answer == 42)
        }
    }

    @Test("a write whose session the server ended before COMMIT throws connectionLost: never a commit")
    func sessionEndedBeforeCommit() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE t (a int)") }
            let error = try await within(hangBound, "COMMIT after the server ended the session") {
                await #expect(throws: PostgresError.self) {
                    try await pool.write { db in
                        try await db.execute(query: "INSERT INTO t VALUES (1)")
                        try await db.execute(query: "SET LOCAL idle_in_transaction_session_timeout = '50ms'")
                        let pid = try #require(try await db.fetchOne(Int.self, query: "SELECT pg_backend_pid()"))
                        try await Self.waitUntilGone(pid)
                    }
                }
            }
            #expect(error?.code == .connectionLost)
            let count = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM t") }
            #expect(count == 0)
        }
    }

    @Test(
        "16 writers while their backends are terminated: each write ends within seconds, no acknowledged write is lost")
    func terminatedBackendsUnderLoad() async throws {
        let name = "strata-loss-" + UUID().uuidString.prefix(8).lowercased()
        try await PostgresTestServer.withPool(connections: 16, applicationName: name) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE w (id text PRIMARY KEY, writer int, n int)")
            }
            let admin = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
            let running = LockedBox(true)
            let finished = LockedBox(0)
            let outcomes = try await within(120, "16 writers under pg_terminate_backend") {
                try await withThrowingTaskGroup(of: [String: Int].self) { group in
                    for writer in 0..<16 {
                        group.addTask {
                            var outcomes: [String: Int] = [:]
                            var acknowledged: [String] = []
                            for n in 0..<40 {
                                defer { finished.update { $0 += 1 } }
                                let id = "\(writer)-\(n)"
                                do {
                                    try await pool.write { db in
                                        try await db.execute(
                                            query: "INSERT INTO w VALUES (:id, :writer, :n)",
                                            parameters: ["id": id, "writer": writer, "n": n])
                                        try await db.execute(
                                            query: "UPDATE w SET n = n + 1 WHERE id = :id", parameters: ["id": id])
                                    }
                                    acknowledged.append(id)
                                    outcomes["committed", default: 0] += 1
                                } catch let error as PostgresError
                                    where error.code == .connectionLost || error.code == .commitOutcomeUnknown
                                    // A connection the pool was opening in place of a lost one was terminated
                                    // too: the write never started.
                                    || error.code == .connectionFailed
                                {
                                    outcomes["\(error.code)", default: 0] += 1
                                } catch {
                                    Issue.record("writer \(writer): \(error)")
                                    outcomes["other", default: 0] += 1
                                }
                            }
                            // Every acknowledged write is there.
                            let stored = try await Self.readRetrying(pool) { db in
                                try await db.fetchAll(
                                    String.self, query: "SELECT id FROM w WHERE writer = :writer",
                                    parameters: ["writer": writer])
                            }
                            let missing = Set(acknowledged).subtracting(stored)
                            #expect(missing.isEmpty, "acknowledged but not stored: \(missing.sorted())")
                            return outcomes
                        }
                    }
                    group.addTask {
                        // Terminate the pool's backends five times, each time after the writers made progress.
                        for _ in 0..<5 {
                            let start = finished.get()
                            while running.get() && finished.get() < start + 30 {
                                try await Task.sleep(for: .milliseconds(20))
                            }
                            _ = try await admin.read { db in
                                try await db.fetchAll(
                                    Bool.self,
                                    query: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                        + "WHERE application_name = :name AND pid <> pg_backend_pid()",
                                    parameters: ["name": name])
                            }
                        }
                        return [:]
                    }
                    var total: [String: Int] = [:]
                    for try await outcomes in group {
                        total.merge(outcomes, uniquingKeysWith: +)
                        if total.values.reduce(0, +) == 16 * 40 { running.set(false) }
                    }
                    return total
                }
            }
            running.set(false)
            await admin.close()
            #expect(outcomes.values.reduce(0, +) == 16 * 40)
            #expect(outcomes["other"] == nil)
            #expect((outcomes["connection lost"] ?? 0) + (outcomes["commit outcome unknown"] ?? 0) > 0)
            #expect(outcomes["committed"] ?? 0 > 0)
            // The pool serves the next requests.
            let count = try await within(hangBound, "a read after the terminations") {
                try await Self.readRetrying(pool) { db in
                    try await db.fetchOne(Int.self, query: "SELECT count(*) FROM w")
                }
            }
            #expect((count ?? 0) >= outcomes["committed"] ?? 0)
        }
    }

    @Test("a task waiting for a connection ends when it is cancelled")
    func cancelledWaiter() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let holding = AsyncStream<Void>.makeStream()
            let release = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await pool.read { _ in
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                }
            }
            for await _ in holding.stream { break }
            let waiter = Task { try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 1") } }
            waiter.cancel()
            let result = try await within(hangBound, "the cancelled waiter") { await waiter.result }
            #expect(throws: CancellationError.self) { try result.get() }
            release.continuation.yield()
            try await holder.value
            #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 7") } == 7)
        }
    }
}
