import Foundation
import StrataPostgres
import StrataTesting
import Testing

/// A role's `CONNECTION LIMIT` below the pool's size: the connections the server allows serve every request.
@Suite("PostgreSQL connection limit", .postgresServer, .serialized, .timeLimit(.minutes(4)))
struct PostgresConnectionLimitTests {
    /// Waits until the server has ended every session of `strata_limited`: it ends them a moment after their pool
    /// closed them, and until then they count against the role's limit.
    static func waitForNoSessionOfTheRole() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1)
        for _ in 0..<100 {
            let sessions = try await pool.read { db in
                try await db.fetchOne(
                    Int.self, query: "SELECT count(*) FROM pg_stat_activity WHERE usename = 'strata_limited'")
            }
            if sessions == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await pool.close()
    }

    @Test("16 tasks on a pool of 16 for a role limited to 3 connections: every request is served")
    func roleConnectionLimit() async throws {
        let url = try PostgresTestServer.requireLimitedURL()
        try await Self.waitForNoSessionOfTheRole()
        try await PostgresTestServer.withPool(connections: 16, url: url) { pool in
            let (served, failures) = try await within(90, "16 tasks under a connection limit of 3") {
                try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                    for task in 0..<16 {
                        group.addTask {
                            var served = 0
                            var failures: [String] = []
                            for _ in 0..<5 {
                                do {
                                    let answer = try await pool.read { db in
                                        try await db.fetchOne(
                                            Int.self, query: "SELECT :task FROM pg_sleep(0.02)",
                                            parameters: ["task": task])
                                    }
                                    if answer == task { served += 1 }
                                } catch {
                                    failures.append("\(error)")
                                }
                            }
                            return (served, failures)
                        }
                    }
                    return try await group.reduce(into: (0, [String]())) {
                        $0.0 += $1.0; $0.1 += $1.1
                    }
                }
            }
            #expect(failures == [])
            #expect(served == 80)
        }
    }

    @Test("when no connection at all can be opened, the refusal is the request's error, at once")
    func refusedWithNoneOpen() async throws {
        let url = try PostgresTestServer.requireLimitedURL()
        try await Self.waitForNoSessionOfTheRole()
        // Three connections of the role held elsewhere: the pool cannot open any.
        let holders = try PostgresPool(url: url, connections: 3)
        let held = AsyncStream<Void>.makeStream()
        let releases = (0..<3).map { _ in AsyncStream<Void>.makeStream() }
        let holding = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for release in releases {
                    group.addTask {
                        try await holders.read { db in
                            _ = try await db.fetchOne(Int.self, query: "SELECT 1")
                            held.continuation.yield()
                            for await _ in release.stream {}
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // A holder that cannot connect fails the test here instead of leaving it waiting.
        try await within(hangBound, "three connections held") {
            var count = 0
            for await _ in held.stream {
                count += 1
                if count == 3 { break }
            }
        }
        let pool = try PostgresPool(url: url, connections: 4)
        let error = try await within(hangBound, "a request the server refuses") {
            await #expect(throws: PostgresError.self) {
                try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
            }
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.sqlState == "53300")
        #expect(error?.description.contains("too many connections") == true, "\(String(describing: error))")
        for release in releases { release.continuation.finish() }
        try await holding.value
        await holders.close()
        // The server ends the holders' sessions a moment after they close: the role may still be at its limit.
        var answer: Int?
        for _ in 0..<50 where answer == nil {
            do {
                answer = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 5") }
            } catch let error as PostgresError where error.sqlState == "53300" {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(answer == 5)
        await pool.close()
    }
}
