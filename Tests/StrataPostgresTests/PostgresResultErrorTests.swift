import Foundation
import StrataPostgres
import StrataTesting
import Testing

/// A statement that fails part-way through its rows (a cursor read to its error, a `fetchOne` whose unread rows end
/// in an error, a rollback that cannot run) fails its block, and the connection goes back to the pool clean; many
/// tasks on one connection never wait for good.
@Suite("PostgreSQL results that fail part-way, and a pool of one under load", .postgresServer, .timeLimit(.minutes(5)))
struct PostgresResultErrorTests {
    /// Rows 1 and 2, then division by zero at the third.
    static let failsAtThird = "SELECT 10 / (n - 3) FROM generate_series(1, 5) AS n"

    @Test("a cursor's error caught inside a write: the write throws it, and the connection serves the next read")
    func cursorErrorInWrite() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE kept (a int)") }
            let seen = LockedBox<[Int]>([])
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO kept VALUES (1)")
                    do {
                        for try await value in try await db.fetchCursor(Int.self, query: Self.failsAtThird) {
                            seen.update { $0.append(value) }
                        }
                    } catch {}
                }
            }
            // postgres-nio may hand over the error before the rows that came with it.
            #expect([[], [-5], [-5, -10]].contains(seen.get()), "\(seen.get())")
            #expect(error?.sqlState == "22012")
            // The one connection is back in the pool outside any transaction: not in an aborted one (25P02).
            let next = try await within(hangBound, "the read after the write") {
                try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM kept") }
            }
            #expect(next == 0)
        }
    }

    @Test("a fetchOne inside a write whose unread rows end in an error fails the write with that error")
    func errorInUnreadRows() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE v (n int)") }
            let first = LockedBox<Int?>(nil)
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    // Rows enough to reach the client before the error at the 900th, which nobody reads.
                    first.set(
                        try await db.fetchOne(
                            Int.self, query: "SELECT 10000 / (n - 900) FROM generate_series(1, 2000) AS n"))
                    try await db.execute(query: "INSERT INTO v VALUES (1)")
                }
            }
            #expect(first.get() == -11)
            // The statement's own error, not the "current transaction is aborted" (25P02) of the INSERT after it.
            #expect(error?.sqlState == "22012", "\(String(describing: error))")
            #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM v") } == 0)
        }
    }

    @Test("the refusal after a failed statement does not quote the value the failure's message quotes")
    func refusalHidesQuotedValues() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let refusal = LockedBox<PostgresError?>(nil)
            await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    do {
                        try await db.execute("SELECT \("s3cr3t-12a")::int")
                    } catch {}
                    do {
                        try await db.execute(query: "SELECT 1")
                    } catch let error as PostgresError {
                        refusal.set(error)
                    }
                }
            }
            let error = try #require(refusal.get())
            #expect(error.code == .transactionAborted)
            #expect(error.description.contains("22P02"), "\(error)")
            #expect(!error.description.contains("s3cr3t"), "\(error)")
            #expect(!error.message.contains("s3cr3t"), "\(error.message)")
        }
    }

    @Test("64 tasks on a pool of one connection: every request is served, none waits for good")
    func manyTasksOnOneConnection() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            // Five reads each: what counts is that all 64 are served, not how fast a loaded machine serves them.
            let served = try await within(180, "64 tasks on one connection") {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for task in 0..<64 {
                        group.addTask {
                            var served = 0
                            for _ in 0..<5 {
                                let answer = try await pool.read { db in
                                    try await db.fetchOne(Int.self, query: "SELECT \(task)")
                                }
                                if answer == task { served += 1 }
                            }
                            return served
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            #expect(served == 64 * 5)
        }
    }
}
