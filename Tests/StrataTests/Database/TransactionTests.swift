import Foundation
import Strata
import Testing

@Suite struct TransactionTests {
    private struct Failure: Error, Equatable {
        let id: Int
    }

    private func makeAccounts() throws -> Database {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
                INSERT INTO account VALUES (1, 100), (2, 0);
                """)
        return db
    }

    private func balances(_ db: Database) throws -> [Int] {
        var result: [Int] = []
        let statement = try db.prepare(query: "SELECT balance FROM account ORDER BY id")
        while let row = try statement.next() {
            result.append(try row.balance)
        }
        return result
    }

    @Test(arguments: TransactionKind.allCases)
    func aTransactionCommitsWhenTheBlockReturns(kind: TransactionKind) throws {
        let db = try makeAccounts()
        let result = try db.transaction(kind) { db in
            #expect(db.isInTransaction)
            try db.execute(query: "UPDATE account SET balance = balance - 10 WHERE id = 1")
            try db.execute(query: "UPDATE account SET balance = balance + 10 WHERE id = 2")
            return "done"
        }
        #expect(result == "done")
        #expect(!db.isInTransaction)
        #expect(try balances(db) == [90, 10])
    }

    @Test(arguments: TransactionKind.allCases)
    func aTransactionRollsBackWhenTheBlockThrows(kind: TransactionKind) throws {
        let db = try makeAccounts()
        #expect(throws: Failure(id: 1)) {
            try db.transaction(kind) { db in
                try db.execute(query: "UPDATE account SET balance = balance - 10 WHERE id = 1")
                throw Failure(id: 1)
            }
        }
        #expect(!db.isInTransaction)
        #expect(try balances(db) == [100, 0])
    }

    @Test func aFailingStatementRollsBackTheWholeTransaction() throws {
        let db = try makeAccounts()
        let error = expectError(.checkViolation) {
            try db.transaction { db in
                try db.execute(query: "UPDATE account SET balance = balance + 50 WHERE id = 2")
                try db.execute(query: "UPDATE account SET balance = balance - 500 WHERE id = 1")
            }
        }
        #expect(error?.resultCode == .constraintCheck)
        #expect(!db.isInTransaction)
        #expect(try balances(db) == [100, 0])
    }

    @Test func aFailedCommitRollsBack() throws {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
                """)
        let error = expectError(.foreignKeyViolation) {
            try db.transaction { db in
                // Deferred: the violation is only reported by COMMIT.
                try db.execute(query: "INSERT INTO child VALUES (9)")
            }
        }
        #expect(error?.resultCode?.primary == .constraint)
        #expect(error.text.contains("COMMIT"))
        #expect(!db.isInTransaction)
        let row = try #require(try db.prepare(query: "SELECT count(*) AS n FROM child").next())
        #expect(try row.n == 0)
    }

    @Test func aNestedTransactionIsASavepoint() throws {
        let db = try makeAccounts()
        try db.transaction { db in
            try db.execute(query: "UPDATE account SET balance = 50 WHERE id = 1")
            try db.transaction { db in
                try db.execute(query: "UPDATE account SET balance = 60 WHERE id = 2")
            }
            #expect(db.isInTransaction)
            #expect(try balances(db) == [50, 60])
        }
        #expect(try balances(db) == [50, 60])
    }

    @Test func aFailingSavepointRollsBackOnlyItsOwnWork() throws {
        let db = try makeAccounts()
        try db.transaction { db in
            try db.execute(query: "UPDATE account SET balance = 50 WHERE id = 1")
            #expect(throws: Failure(id: 2)) {
                try db.transaction { db in
                    try db.execute(query: "UPDATE account SET balance = 60 WHERE id = 2")
                    throw Failure(id: 2)
                }
            }
            #expect(db.isInTransaction)
            #expect(try balances(db) == [50, 0])
        }
        #expect(try balances(db) == [50, 0])
    }

    @Test func savepointsNestDeeply() throws {
        let db = try makeAccounts()
        try db.transaction { db in
            try db.transaction { db in
                try db.execute(query: "UPDATE account SET balance = 1 WHERE id = 1")
                #expect(throws: Failure(id: 3)) {
                    try db.transaction { db in
                        try db.execute(query: "UPDATE account SET balance = 3 WHERE id = 1")
                        throw Failure(id: 3)
                    }
                }
                try db.transaction { db in
                    try db.execute(query: "UPDATE account SET balance = 2 WHERE id = 2")
                }
            }
        }
        #expect(try balances(db) == [1, 2])
    }

    @Test func anOuterFailureRollsBackCommittedSavepoints() throws {
        let db = try makeAccounts()
        #expect(throws: Failure(id: 4)) {
            try db.transaction { db in
                try db.transaction { db in
                    try db.execute(query: "UPDATE account SET balance = 7 WHERE id = 2")
                }
                throw Failure(id: 4)
            }
        }
        #expect(try balances(db) == [100, 0])
    }

    @Test func transactionInsideAManualTransactionIsASavepoint() throws {
        let db = try makeAccounts()
        try db.beginTransaction()
        #expect(throws: Failure(id: 5)) {
            try db.transaction { db in
                try db.execute(query: "UPDATE account SET balance = 5 WHERE id = 1")
                throw Failure(id: 5)
            }
        }
        #expect(db.isInTransaction)
        try db.execute(query: "UPDATE account SET balance = 6 WHERE id = 2")
        try db.commitTransaction()
        #expect(try balances(db) == [100, 6])
    }

    // MARK: Manual control

    @Test func beginCommitAndRollback() throws {
        let db = try makeAccounts()
        try db.beginTransaction(.immediate)
        #expect(db.isInTransaction)
        try db.execute(query: "UPDATE account SET balance = 1 WHERE id = 1")
        try db.rollbackTransaction()
        #expect(!db.isInTransaction)
        #expect(try balances(db) == [100, 0])
        try db.beginTransaction()
        try db.execute(query: "UPDATE account SET balance = 2 WHERE id = 1")
        try db.commitTransaction()
        #expect(try balances(db) == [2, 0])
    }

    @Test func beginningTwiceThrows() throws {
        let db = try makeDatabase()
        try db.beginTransaction()
        let error = expectError(.invalidArgument) { try db.beginTransaction(.exclusive) }
        #expect(error.text.contains("already open"))
        #expect(db.isInTransaction)
        try db.commitTransaction()
    }

    @Test func commitOrRollbackWithoutATransactionThrows() throws {
        let db = try makeDatabase()
        let commit = expectError(.sqlite) { try db.commitTransaction() }
        #expect(commit?.resultCode == .error)
        #expect(commit.text.contains("no transaction is active"))
        #expect(commit.text.contains("COMMIT"))
        let rollback = expectError(.sqlite) { try db.rollbackTransaction() }
        #expect(rollback.text.contains("no transaction is active"))
    }

    @Test func transactionsOnAClosedDatabaseThrow() throws {
        let db = try makeDatabase()
        db.close()
        expectError(.connectionClosed) { try db.beginTransaction() }
        var ran = false
        expectError(.connectionClosed) { try db.transaction { _ in ran = true } }
        #expect(!ran)
    }

    // MARK: Locking kinds

    /// Two connections to one WAL file; `other` fails at once instead of waiting for a lock.
    private func twoConnections(in directory: TemporaryDirectory) throws -> (Database, Database) {
        let path = directory.path("locks.sqlite")
        let first = try Database(path: path)
        try first.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1)")
        let other = try Database(path: path)
        other.busyTimeout = 0
        return (first, other)
    }

    @Test func aDeferredTransactionTakesNoLockUntilItWrites() throws {
        let directory = try TemporaryDirectory()
        let (db, other) = try twoConnections(in: directory)
        try db.transaction(.deferred) { db in
            try other.execute(query: "INSERT INTO t VALUES (2)")
            try db.execute(query: "INSERT INTO t VALUES (3)")
            let error = expectError(.busy) { try other.execute(query: "INSERT INTO t VALUES (4)") }
            #expect(error?.resultCode?.primary == .busy)
        }
        let row = try #require(try other.prepare(query: "SELECT group_concat(v) AS v FROM t").next())
        #expect(try row.v == "1,2,3")
    }

    @Test(arguments: [TransactionKind.immediate, .exclusive])
    func immediateAndExclusiveTakeTheWriteLockAtOnce(kind: TransactionKind) throws {
        let directory = try TemporaryDirectory()
        let (db, other) = try twoConnections(in: directory)
        try db.transaction(kind) { _ in
            let error = expectError(.busy) { try other.execute(query: "INSERT INTO t VALUES (2)") }
            #expect(error?.resultCode?.primary == .busy)
            // WAL lets readers in.
            let row = try #require(try other.prepare(query: "SELECT count(*) AS n FROM t").next())
            #expect(try row.n == 1)
        }
    }
}
