import Foundation
import Strata
import Testing

@Suite("Correctness: blocks that own their transaction refuse BEGIN, COMMIT and ROLLBACK")
struct TransactionControlTests {
    static let statements = ["COMMIT", "END", "ROLLBACK", "BEGIN", "BEGIN IMMEDIATE"]

    func database(_ path: String = ":memory:") throws -> Database {
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE IF NOT EXISTS t (x INTEGER)")
        return db
    }

    func count(_ db: Database) throws -> Int {
        try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") ?? -1
    }

    @Test(arguments: statements)
    func aTransactionBlockRefusesTransactionControlAndCommitsNothing(statement: String) throws {
        let db = try database()
        let error = expectError(.invalidArgument) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                try db.execute(query: statement)
                try db.execute(query: "INSERT INTO t VALUES (2)")
            }
        }
        #expect(error.text.contains("refused inside a block that owns its transaction"))
        #expect(error?.sql == statement)
        #expect(!db.isInTransaction)
        #expect(try count(db) == 0)
        // Outside a block, transaction control works as before.
        try db.execute(query: "BEGIN; INSERT INTO t VALUES (3); COMMIT")
        #expect(try count(db) == 1)
    }

    @Test func aStatementPreparedBeforeTheBlockIsRefusedWhenItRuns() throws {
        let db = try database()
        let commit = try db.prepare(query: "COMMIT")
        expectError(.invalidArgument) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                try commit.perform()
            }
        }
        #expect(try count(db) == 0)
        expectError(.invalidArgument) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                try db.execute(query: "COMMIT", parameters: [String: Int]())
            }
        }
        #expect(try count(db) == 0)
    }

    @Test func aSavepointInsideTheBlockStillWorks() throws {
        let db = try database()
        try db.transaction { db in
            try db.execute(query: "INSERT INTO t VALUES (1)")
            try db.execute(query: "SAVEPOINT inner; INSERT INTO t VALUES (2); ROLLBACK TO inner; RELEASE inner")
            try db.transaction { db in try db.execute(query: "INSERT INTO t VALUES (3)") }
        }
        #expect(try db.fetchAll(Int.self, query: "SELECT x FROM t ORDER BY x") == [1, 3])
    }

    @Test func aPoolWriteThatCommitsItselfThrowsAndCommitsNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        _ = try database(path)
        let pool = try DatabasePool(path: path, readers: 1)
        await #expect(throws: DatabaseError.self) {
            try await pool.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                try db.execute(query: "COMMIT")
            }
        }
        #expect(try await pool.read { db in try count(db) } == 0)
        // The pool goes on: the next write commits.
        try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
        #expect(try await pool.read { db in try count(db) } == 1)
        // Without a transaction of its own, the block may manage transactions.
        try await pool.writeWithoutTransaction { db in
            try db.execute(query: "BEGIN; INSERT INTO t VALUES (3); COMMIT")
        }
        #expect(try await pool.read { db in try count(db) } == 2)
        await pool.close()
    }

    @Test func aQueueWriteThatRollsBackItselfThrows() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        await #expect(throws: DatabaseError.self) {
            try await queue.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                try db.execute(query: "ROLLBACK")
            }
        }
        #expect(try await queue.read { db in try count(db) } == 0)
    }
}

@Suite("Correctness: SQL text is never cut short")
struct SQLTextTests {
    @Test func sqlWithANULCharacterThrowsInsteadOfRunningWhatComesBefore() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE t (x INTEGER)")
        let sql = "INSERT INTO t VALUES (1)\u{0}; DROP TABLE t"
        expectError(.invalidArgument) { try db.execute(query: sql) }
        expectError(.invalidArgument) { _ = try db.prepare(query: sql) }
        expectError(.invalidArgument) { try db.execute(query: sql, parameters: [String: Int]()) }
        expectError(.invalidArgument) { _ = try db.fetchAll(Int.self, query: "SELECT 1\u{0}garbage") }
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") == 0)
    }
}
