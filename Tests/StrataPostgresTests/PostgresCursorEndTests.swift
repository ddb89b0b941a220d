import Foundation
import StrataPostgres
import Testing

/// A cursor left early, or a `fetchOne` of a long result, does not make the session's next statement wait for the
/// rest of the result; a cursor whose loop runs another statement goes on with all its rows.
///
/// The long result never ends by itself: PostgreSQL sends the rows of a `generate_series` in the select list one at a
/// time, up to 2,147,483,647 of them. So the next statement runs only if the session cancelled the left one, whatever
/// the machine's load; the time limits only keep a broken cancel from hanging the run.
@Suite("PostgreSQL cursors left early", .postgresServer, .notUnderSanitizer, .timeLimit(.minutes(3)))
struct PostgresCursorEndTests {
    static let long = "SELECT generate_series(1, 2147483647) AS n"

    @Test("after a cursor of an endless result is left at row 10, the next statement runs: the cursor's is cancelled")
    func leftCursorInRead() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let (seen, next) = try await within(90, "the statement after a left cursor") {
                try await pool.read { db in
                    var seen: [Int] = []
                    for try await n in try await db.fetchCursor(Int.self, query: Self.long) {
                        seen.append(n)
                        if seen.count == 10 { break }
                    }
                    return (seen, try await db.fetchOne(Int.self, query: "SELECT 42"))
                }
            }
            #expect(seen == Array(1...10))
            #expect(next == 42)
            // The connection serves the next request, outside any leftover.
            let again = try await within(90, "the next read") {
                try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 43") }
            }
            #expect(again == 43)
        }
    }

    @Test("a cursor left inside a write neither waits for its rows nor aborts the write")
    func leftCursorInWrite() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await within(90, "a write with a left cursor") {
                try await pool.write { db in
                    try await db.execute(query: "CREATE TABLE kept (a int)")
                    for try await _ in try await db.fetchCursor(Int.self, query: Self.long) { break }
                    try await db.execute(query: "INSERT INTO kept VALUES (1)")
                }
            }
            let kept = try await pool.read { db in try await db.fetchAll(Int.self, query: "SELECT a FROM kept") }
            #expect(kept == [1])
        }
    }

    @Test("a cursor left as the read returns gives back a connection that serves the next request")
    func leftCursorAtTheEnd() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await within(90, "a read ending with a left cursor, then another") {
                try await pool.read { db in
                    for try await _ in try await db.fetchCursor(Int.self, query: Self.long) { break }
                }
                #expect(try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 1") } == 1)
            }
        }
    }

    @Test("fetchOne of an endless result outside a transaction returns the first, and the next statement runs")
    func fetchOneOfLongResult() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let (first, next) = try await within(90, "the statement after fetchOne of a long result") {
                // Outside a transaction the statement is cancelled; in one (a read, a write) its rows are read to
                // the end, for a cancel would abort the transaction.
                try await pool.writeWithoutTransaction { db in
                    (
                        try await db.fetchOne(Int.self, query: Self.long),
                        try await db.fetchOne(Int.self, query: "SELECT 42")
                    )
                }
            }
            #expect(first == 1)
            #expect(next == 42)
        }
    }

    @Test("a cursor whose loop runs another statement goes on with every row")
    func interleavedStatements() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let (count, sum, answers) = try await within(60, "a loop that runs statements") {
                try await pool.read { db in
                    var count = 0
                    var sum = 0
                    var answers: [Int] = []
                    for try await n in try await db.fetchCursor(
                        Int.self, query: "SELECT n FROM generate_series(1, 100000) AS n")
                    {
                        count += 1
                        sum += n
                        if n == 1 || n == 50_000 {
                            answers.append(
                                try await db.fetchOne(Int.self, query: "SELECT :n + 1", parameters: ["n": n]) ?? 0)
                        }
                    }
                    return (count, sum, answers)
                }
            }
            #expect(count == 100_000)
            #expect(sum == 100_000 * 100_001 / 2)
            #expect(answers == [2, 50_001])
        }
    }

    @Test("a cursor of UPDATE ... RETURNING left early: the update still changes every row")
    func leftUpdateCursor() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE counted (n int)")
                try await db.execute(query: "INSERT INTO counted SELECT 0 FROM generate_series(1, 5000)")
            }
            try await pool.writeWithoutTransaction { db in
                for try await _ in try await db.fetchCursor(
                    Int.self, query: "UPDATE counted SET n = n + 1 RETURNING n")
                {
                    break
                }
            }
            let total = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT sum(n) FROM counted")
            }
            #expect(total == 5000)
        }
    }
}
