import Foundation
import Strata
import Testing

/// A statement that fails inside a transaction block fails the block, even when the block catches its error: the
/// rule every backend keeps (PostgreSQL aborts a transaction at its first failed statement).
@Suite("Transactions: a failed statement fails its block, even when caught")
struct FailedStatementTransactionTests {
    private static let schema = "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"

    private func names(_ db: Database) throws -> [String] {
        try db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY id")
    }

    @Test func aCaughtFailureFailsTheTransactionAndThrowsWhenItEnds() throws {
        let db = try Database()
        try db.execute(query: Self.schema)
        try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
        let error = expectError(.uniqueViolation) {
            try db.transaction { db in
                try db.execute(query: "INSERT INTO item (name) VALUES ('first')")
                do {
                    try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
                } catch {}
            }
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(try names(db) == ["taken"])
        // The connection goes on as usual afterwards.
        try db.transaction { db in try db.execute(query: "INSERT INTO item (name) VALUES ('later')") }
        #expect(try names(db) == ["taken", "later"])
    }

    @Test func everyStatementAfterTheFailureIsRefusedAndTheFirstFailureIsThrown() throws {
        let db = try Database()
        try db.execute(query: Self.schema)
        var refusal: DatabaseError?
        let error = expectError(.sqlite) {
            try db.transaction { db in
                _ = try? db.fetchAll(String.self, query: "SELECT nope FROM item")
                do {
                    try db.execute(query: "INSERT INTO item (name) VALUES ('after')")
                } catch let caught as DatabaseError {
                    refusal = caught
                    throw caught
                }
            }
        }
        #expect(refusal?.code == .transactionAborted)
        #expect(refusal?.message.contains("no such column: nope") == true)
        // The block threw the failure that aborted it, not the refusal it caused.
        #expect(error?.message.contains("no such column: nope") == true)
        #expect(try names(db).isEmpty)
    }

    @Test func aNestedTransactionContainsItsFailure() throws {
        let db = try Database()
        try db.execute(query: Self.schema)
        try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
        try db.transaction { db in
            try db.execute(query: "INSERT INTO item (name) VALUES ('first')")
            do {
                try db.transaction { db in try db.execute(query: "INSERT INTO item (name) VALUES ('taken')") }
                Issue.record("the nested insert should have thrown")
            } catch let error as DatabaseError {
                #expect(error.resultCode == .constraintUnique)
            }
            // A nested transaction that catches its own failure still fails, and only it rolls back.
            do {
                try db.transaction { db in
                    try db.execute(query: "INSERT INTO item (name) VALUES ('inner')")
                    try? db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
                }
                Issue.record("the nested transaction should have thrown")
            } catch let error as DatabaseError {
                #expect(error.resultCode == .constraintUnique)
            }
            try db.execute(query: "INSERT INTO item (name) VALUES ('second')")
        }
        #expect(try names(db) == ["taken", "first", "second"])
    }

    @Test func aPoolOrQueueWriteThatCaughtAFailureIsNeverReportedCommitted() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), readers: 2)
        let queue = try DatabaseQueue(path: directory.path("queue.sqlite"))
        for writer in [pool as any DatabaseWriter<Database>, queue] {
            try await writer.write { db in
                try db.execute(query: Self.schema)
                try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
            }
            await #expect(throws: DatabaseError.self) {
                try await writer.write { db in
                    try db.execute(query: "INSERT INTO item (name) VALUES ('lost')")
                    do { try db.execute(query: "INSERT INTO item (name) VALUES ('taken')") } catch {}
                }
            }
            #expect(try await writer.read { db in try self.names(db) } == ["taken"])
            try await writer.write { db in try db.execute(query: "INSERT INTO item (name) VALUES ('next')") }
            #expect(try await writer.read { db in try self.names(db) } == ["taken", "next"])
        }
        await pool.close()
        await queue.close()
    }

    @Test func aFailureOutsideAnyBlockChangesNothingAfterIt() throws {
        let db = try Database()
        try db.execute(query: Self.schema)
        try? db.execute(query: "INSERT INTO item (name) VALUES (NULL)")
        try db.execute(query: "INSERT INTO item (name) VALUES ('fine')")
        // A transaction begun by hand is the caller's: SQLite's own rules apply inside it.
        try db.beginTransaction()
        try? db.execute(query: "INSERT INTO item (name) VALUES (NULL)")
        try db.execute(query: "INSERT INTO item (name) VALUES ('kept')")
        try db.commitTransaction()
        #expect(try names(db) == ["fine", "kept"])
    }

    @Test func aPausableTransactionThatCaughtAFailureThrowsIt() throws {
        let db = try Database()
        try db.execute(query: Self.schema)
        try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
        var calls = 0
        let error = expectError(.uniqueViolation) {
            try db.pausableTransaction(maxDuration: .seconds(60)) { db, stop, _ in
                calls += 1
                try db.execute(query: "INSERT INTO item (name) VALUES ('step \(calls)')")
                if calls == 2 { try? db.execute(query: "INSERT INTO item (name) VALUES ('taken')") }
                stop = calls == 3
            }
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(calls == 2)
        #expect(try names(db) == ["taken"])
    }
}
