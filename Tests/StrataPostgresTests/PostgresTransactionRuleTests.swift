import Foundation
import PostgresNIO
import Testing

@testable import StrataPostgres

/// Strata's error, not postgres-nio's older type of the same name.
private typealias PostgresError = StrataPostgres.PostgresError

/// A statement PostgreSQL rejects inside a transaction block fails that block, even when the body catches the error;
/// nested `transaction { }` is how a body goes on after a failure; a write never returns unless PostgreSQL committed.
@Suite("PostgreSQL transaction blocks", .postgresServer)
struct PostgresTransactionRuleTests {
    static let createTable = "CREATE TABLE u (k text PRIMARY KEY)"

    /// The keys stored in `u`, in order.
    static func keys(_ pool: PostgresPool) async throws -> [String] {
        try await pool.read { db in try await db.fetchAll(String.self, query: "SELECT k FROM u ORDER BY k") }
    }

    @Test("a write whose body catches a failed statement throws that failure, and nothing of it is committed")
    func caughtFailureFailsTheWrite() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO u VALUES ('a')")
                    do {
                        try await db.execute(query: "INSERT INTO u VALUES ('a')")
                    } catch {
                        // The SQLite habit: go on after a failed statement.
                    }
                }
            }
            #expect(error?.code == .uniqueViolation)
            #expect(error?.sqlState == "23505")
            #expect(try await Self.keys(pool) == [])
        }
    }

    @Test("after a failed statement, the block's later statements throw transactionAborted without reaching the server")
    func laterStatementsAreRefused() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let refusals = LockedBox<[PostgresError]>([])
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO u VALUES ('a')")
                    _ = try? await db.execute(query: "INSERT INTO u VALUES ('a')")
                    for sql in ["INSERT INTO u VALUES ('b')", "SELECT count(*) FROM u"] {
                        do {
                            _ = try await db.fetchAll(query: sql)
                        } catch let refusal as PostgresError {
                            refusals.update { $0.append(refusal) }
                        }
                    }
                    // A nested transaction does not begin in a failed block either.
                    do {
                        try await db.transaction { db in try await db.execute(query: "INSERT INTO u VALUES ('c')") }
                    } catch let refusal as PostgresError {
                        refusals.update { $0.append(refusal) }
                    }
                }
            }
            // The write throws the first failure again.
            #expect(error?.sqlState == "23505")
            let refused = refusals.get()
            #expect(refused.map(\.code) == [.transactionAborted, .transactionAborted, .transactionAborted])
            // PostgreSQL's own refusal would be 25P02; Strata's names the first failure, without values.
            #expect(refused.allSatisfy { $0.sqlState == nil })
            #expect(refused.first?.sql == "INSERT INTO u VALUES ('b')")
            #expect(
                refused.first?.message
                    == "the transaction was aborted by an earlier failed statement (PostgreSQL error 23505: duplicate "
                    + "key value violates unique constraint \"u_pkey\"); it rolls back when its block ends: run a "
                    + "statement that may fail in a nested transaction { } to go on after its failure")
            #expect(try await Self.keys(pool) == [])
        }
    }

    @Test("a failed statement in a nested transaction rolls back to its savepoint: the write goes on and commits")
    func nestedTransactionContainsTheFailure() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let outcome = try await pool.write { db -> String in
                try await db.execute(query: "INSERT INTO u VALUES ('a')")
                do {
                    try await db.transaction { db in
                        try await db.execute(query: "INSERT INTO u VALUES ('b')")
                        try await db.execute(query: "INSERT INTO u VALUES ('a')")
                    }
                    return "committed"
                } catch let error as PostgresError where error.sqlState == "23505" {
                    try await db.execute(query: "INSERT INTO u VALUES ('c')")
                    return "went on"
                }
            }
            #expect(outcome == "went on")
            // 'b' was in the failed nested transaction; 'a' and 'c' in the write.
            #expect(try await Self.keys(pool) == ["a", "c"])
        }
    }

    @Test("a nested transaction whose body catches a failure rolls back and throws it; the write goes on")
    func nestedBlockFollowsTheRule() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let nestedError = try await pool.write { db -> PostgresError? in
                try await db.execute(query: "INSERT INTO u VALUES ('a')")
                let error = await #expect(throws: PostgresError.self) {
                    try await db.transaction { db in
                        try await db.execute(query: "INSERT INTO u VALUES ('b')")
                        _ = try? await db.execute(query: "INSERT INTO u VALUES ('a')")
                    }
                }
                try await db.execute(query: "INSERT INTO u VALUES ('d')")
                return error
            }
            #expect(nestedError?.sqlState == "23505")
            #expect(try await Self.keys(pool) == ["a", "d"])
        }
    }

    @Test("nested transactions return their body's value, nest in each other, and roll back alone when they throw")
    func nestedTransactions() async throws {
        struct Failure: Error {}
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let value = try await pool.write { db -> Int in
                try await db.execute(query: "INSERT INTO u VALUES ('a')")
                let inner = try await db.transaction { db -> Int in
                    try await db.execute(query: "INSERT INTO u VALUES ('b')")
                    await #expect(throws: Failure.self) {
                        try await db.transaction { db in
                            try await db.execute(query: "INSERT INTO u VALUES ('c')")
                            throw Failure()
                        }
                    }
                    return try await db.transaction { db in
                        try await db.execute(query: "INSERT INTO u VALUES ('e')")
                        return 42
                    }
                }
                return inner + 1
            }
            #expect(value == 43)
            #expect(try await Self.keys(pool) == ["a", "b", "e"])

            // Outside a transaction, transaction { } is a transaction of its own.
            try await pool.writeWithoutTransaction { db in
                try await db.transaction { db in try await db.execute(query: "INSERT INTO u VALUES ('r')") }
                await #expect(throws: Failure.self) {
                    try await db.transaction { db in
                        try await db.execute(query: "INSERT INTO u VALUES ('s')")
                        throw Failure()
                    }
                }
            }
            #expect(try await Self.keys(pool) == ["a", "b", "e", "r"])
        }
    }

    @Test("BEGIN, COMMIT and ROLLBACK in a write's SQL are refused, and the write rolls back")
    func transactionControlIsRefused() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            for sql in ["COMMIT", "ROLLBACK", "BEGIN", " /* c */ end", "START TRANSACTION", "ABORT"] {
                let later = LockedBox<PostgresError?>(nil)
                let error = await #expect(throws: DatabaseError.self) {
                    try await pool.write { db in
                        try await db.execute(query: "INSERT INTO u VALUES ('a')")
                        do {
                            try await db.execute(query: sql)
                        } catch {}
                        do {
                            try await db.execute(query: "INSERT INTO u VALUES ('z')")
                        } catch let error as PostgresError {
                            later.set(error)
                        }
                    }
                }
                // The write throws the refusal when its body returns; in between, the block is failed.
                #expect(error?.code == .invalidArgument, "\(sql)")
                #expect(later.get()?.code == .transactionAborted, "\(sql)")
                #expect(try await Self.keys(pool) == [], "\(sql)")
            }
            // ROLLBACK TO SAVEPOINT stays inside the transaction, and runs.
            try await pool.write { db in
                try await db.execute(query: "INSERT INTO u VALUES ('a')")
                try await db.execute(query: "SAVEPOINT mine")
                try await db.execute(query: "INSERT INTO u VALUES ('b')")
                try await db.execute(query: "ROLLBACK TO SAVEPOINT mine")
            }
            #expect(try await Self.keys(pool) == ["a"])
        }
    }

    @Test("a transaction PostgreSQL aborted behind Strata's back: COMMIT answers ROLLBACK, and the write throws")
    func commitTagIsChecked() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            let error = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO u VALUES ('a')")
                    // A failure the session does not see, sent past it.
                    _ = try? await db.connection.query(PostgresQuery(unsafeSQL: "SELECT 1/0"), logger: db.logger).get()
                }
            }
            #expect(error?.code == .transactionAborted)
            #expect(error?.message.contains("COMMIT answered ROLLBACK") == true)
            #expect(try await Self.keys(pool) == [])
        }
    }

    @Test("a client-side error (an unknown parameter) does not fail the block")
    func clientErrorsDoNotFailTheBlock() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Self.createTable) }
            try await pool.write { db in
                try await db.execute(query: "INSERT INTO u VALUES ('a')")
                await #expect(throws: DatabaseError.self) {
                    try await db.execute(query: "INSERT INTO u VALUES (:k)", parameters: ["other": "x"])
                }
                try await db.execute(query: "INSERT INTO u VALUES ('b')")
            }
            #expect(try await Self.keys(pool) == ["a", "b"])
        }
    }
}
