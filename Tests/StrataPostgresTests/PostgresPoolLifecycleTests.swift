import Foundation
import Logging
import ServiceLifecycle
import StrataPostgres
import StrataTesting
import Testing

/// A pool works as soon as it is created and ends with `close()`; a closed pool says so in one line.
@Suite("PostgreSQL pool lifecycle", .postgresServer, .timeLimit(.minutes(3)))
struct PostgresPoolLifecycleTests {
    @Test("a pool serves requests as soon as it is created, without run()")
    func usableAtOnce() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 2)
        let answer = try await within(hangBound, "a read on a pool that was never run") {
            try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 41 + 1") }
        }
        #expect(answer == 42)
        await pool.close()
    }

    @Test("after close(), requests throw connectionClosed in one line, without internal names; close() is idempotent")
    func closed() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 2)
        _ = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 1") }
        #expect(!pool.isClosed)
        await pool.close()
        await withDiscardingTaskGroup { group in
            for _ in 0..<3 { group.addTask { await pool.close() } }
        }
        #expect(pool.isClosed)
        for request in 0..<2 {
            let error = await #expect(throws: PostgresError.self) {
                if request == 0 {
                    try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
                } else {
                    try await pool.write { db in try await db.execute(query: "SELECT 1") }
                }
            }
            #expect(error?.code == .connectionClosed)
            #expect(error?.description.contains("closed") == true)
            #expect(error?.description.contains("\n") == false)
            for name in ["ConnectionPoolError", "poolShutdown", "PSQLError", "Error("] {
                #expect(error?.description.contains(name) == false, "\(String(describing: error))")
            }
        }
    }

    @Test("close() lets a request asked for before finish, then closes")
    func closeWaitsForWork() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
        let started = AsyncStream<Void>.makeStream()
        let work = Task {
            try await pool.read { db -> Int? in
                started.continuation.yield()
                return try await db.fetchOne(Int.self, query: "SELECT 7 FROM pg_sleep(0.2)")
            }
        }
        for await _ in started.stream { break }
        await pool.close()
        #expect(try await work.value == 7)
    }

    @Test("run() in a ServiceGroup closes the pool at graceful shutdown; run() of a closed pool returns")
    func serviceGroup() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 2)
        let group = ServiceGroup(
            services: [pool], logger: Logger(label: "strata.test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let run = Task { try await group.run() }
        let answer = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 41 + 1") }
        #expect(answer == 42)
        await group.triggerGracefulShutdown()
        try await run.value
        #expect(pool.isClosed)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
        }
        #expect(error?.code == .connectionClosed)
        try await within(hangBound, "run() of a closed pool") { try await pool.run() }
    }

    @Test("run() returns and closes the pool when its task is cancelled")
    func runCancelled() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 2)
        let run = Task { try await pool.run() }
        #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 1") } == 1)
        run.cancel()
        try await within(hangBound, "run() after cancellation") { try await run.value }
        #expect(pool.isClosed)
    }
}
