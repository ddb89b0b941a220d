import Foundation
import StrataPostgres
import StrataTesting
import Testing

/// A server that stops fails requests with the refusal, in one line, without waiting; once it is back, the next
/// request uses it.
@Suite(
    "PostgreSQL server stopped and started", .postgresServer, .notUnderSanitizer, .serialized, .timeLimit(.minutes(8)))
struct PostgresServerRestartTests {
    @Test("a stopped server fails requests with the refusal, never waits; the next request after it is back is served")
    func stopAndStart() async throws {
        let server = try DisposableServer.require()
        let pool = try PostgresPool(url: server.url, connections: 4)
        #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 1") } == 1)
        try await server.stop()
        do {
            for attempt in 0..<3 {
                let error = try await within(hangBound, "a request while the server is stopped") {
                    await #expect(throws: PostgresError.self) {
                        try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
                    }
                }
                // The idle connection the server closed is dropped; a new one is refused. On a loaded machine the
                // first request may take the idle connection before the client has read that the server closed it:
                // nothing is sent on it, and the request throws connectionLost.
                if attempt == 0 && error?.code == .connectionLost { continue }
                #expect(error?.code == .connectionFailed, "attempt \(attempt): \(String(describing: error))")
                #expect(error?.description.contains("Connection refused") == true, "\(String(describing: error))")
                #expect(error?.description.contains("\n") == false)
                for name in ["Error(", "NIO", "PSQL", "ConnectionPool", "circuitBreaker", "poolShutdown"] {
                    #expect(error?.description.contains(name) == false, "\(String(describing: error))")
                }
            }
        } catch {
            try await server.start()
            throw error
        }
        try await server.start()
        let answer = try await within(hangBound, "the first request after the server is back") {
            try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 42") }
        }
        #expect(answer == 42)
        await pool.close()
    }

    @Test("writes while the server stops end with connectionLost or commitOutcomeUnknown, or commit; none hangs")
    func writesDuringStop() async throws {
        let server = try DisposableServer.require()
        let pool = try PostgresPool(url: server.url, connections: 8)
        try await pool.write { db in
            try await db.execute(query: "DROP TABLE IF EXISTS restart_w")
            try await db.execute(query: "CREATE TABLE restart_w (id serial PRIMARY KEY, n int)")
        }
        let stopped = LockedBox(false)
        let codes = try await within(60, "8 writers while the server stops") {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var codes: [String] = []
                        while !stopped.get() || codes.count < 5 {
                            do {
                                try await pool.write { db in
                                    try await db.execute(query: "INSERT INTO restart_w (n) VALUES (1)")
                                }
                                codes.append("committed")
                            } catch let error as PostgresError {
                                codes.append("\(error.code)")
                                if stopped.get() && error.code == .connectionFailed { break }
                            }
                            if codes.count > 10_000 { break }
                        }
                        return codes
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(300))
                    try await server.stop()
                    stopped.set(true)
                    return []
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        try await server.start()
        let allowed: Set<String> = ["committed", "connection lost", "commit outcome unknown", "connection failed"]
        #expect(Set(codes).isSubset(of: allowed), "\(Set(codes))")
        #expect(codes.contains("connection failed"))
        let count = try await within(hangBound, "a read after the restart") {
            try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM restart_w") }
        }
        #expect((count ?? 0) >= codes.filter { $0 == "committed" }.count)
        await pool.close()
    }
}
